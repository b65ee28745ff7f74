# The service image: every role (--role all | engine | api | projector, or PMX_ROLE) runs from it.
# Built from the lockfile with `npm install` (not `npm ci`: chdb lists optional native packages for other
# platforms that a registry may not serve; .ci/run says more), compiled, dev dependencies pruned, and run as
# an unprivileged user. docker-compose.yml runs the scale-out roles from it.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Native modules (secp256k1, keccak, bufferutil) fall back to building from source where no prebuilt fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The native signature recovery where the build stage had cargo (scripts/buildNative.sh); empty otherwise.
COPY --from=build /app/native/build ./native/build
COPY --from=build /app/package.json ./
COPY --from=build /app/scripts/node-flags ./scripts/node-flags
COPY --from=build /app/catalog/demo/demoCatalog.json ./catalog/demo/demoCatalog.json
RUN mkdir -p /data && chown node:node /data
USER node
ENV PMX_DATA_DIR=/data PMX_HTTP_HOST=0.0.0.0 PMX_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080 8081 7100
ENTRYPOINT ["sh", "-c", "exec node $(cat scripts/node-flags) dist/server/main.js \"$@\"", "--"]
