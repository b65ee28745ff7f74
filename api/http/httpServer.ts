// The HTTP server on uWebSockets.js. Every surface is mounted under its prefix (/catalog, /activity, /clob);
// at the root, each path that only one surface has goes to it, and paths two surfaces share are chosen by
// a documented rule (rootRules.ts). Service endpoints (/metrics, /openapi.json, operator) live at the root.
//
// Per request, in order: rate limits (429 + Retry-After), the activity IP allowlist (403), unknown query
// parameters on strict routes, path parameter and query validation, body cap (413) and JSON parsing and
// validation, then the handler (a route marked `engineState` has it run once the engine is at a durable state:
// apiTypes.ts). A route with a guard (authentication) has it run once the body has arrived,
// and only then are its path parameters, query and body validated: a request that fails authentication is
// refused before anything else of it is judged (schemas.ts says which error each input answers). uWS request data is read synchronously before the first await (uWS invalidates `req` after the
// callback returns); every response registers onAborted and writes nothing after the client went away.
//
// Methods (RFC 9110 §9): every GET route also answers HEAD (the same status and headers, no body); every
// known path answers OPTIONS with 204 and `Allow` (a CORS preflight: cors.ts) and any other method, known or
// not, with 405 and `Allow`; a path no route has answers 404, or 501 to a method the server does not know.
// Such a method reaches the server from the edge as TRACE with `x-pmx-method` (edge/requestHead.ts).
//
// Every response goes out through one writer (`write`): the CORS headers the request's Origin calls for,
// `connection: keep-alive|close` echoed when the request names one (an HTTP/1.0 client behind the edge
// keeps its connection only so), the body compressed when it is large enough and Accept-Encoding allows
// (compression.ts), and none at all for HEAD and 204. No response is ever chunked, so each can go to an
// HTTP/1.0 client as it is.
//
// The server listens either on a TCP port (it owns the public port; a request's IP is its socket's) or on
// a Unix socket behind the header edge (headerEdge.ts; a request's IP is the edge's x-pmx-client-ip, which
// is trusted only on a Unix-socket connection, where uWS reports no remote address).

import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { durableState, type CommandGateway } from '../../host/commandGateway.js';
import { ReadModelInputError } from '../../projections/readModel/errors.js';
import { ApiError, errorBody } from './apiErrors.js';
import { clientIpOf } from './headerEdge.js';
import { ClientAddresses, FORWARDED_FOR_HEADER } from './clientAddress.js';
import type { ApiRequest, Method, Reply, RequestMethod, RouteDef, Surface } from './apiTypes.js';
import { chooseCoding, compress, type ContentCoding } from './compression.js';
import { corsResponseHeaders, preflightHeaders, type CorsPolicy } from './cors.js';
import { METHOD_HEADER } from './edge/requestHead.js';
import type { IpAllowlist } from './ipAllowlist.js';
import { apiKeyRateKey, type RateLimiter } from './rateLimiter.js';
import type { RootRule } from './rootRules.js';
import { checkBody, checkParams, checkQuery, compileRoute, unknownParam, type CompiledRoute } from './schemas.js';
import type { UwsModule } from './uwsLoader.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Longest Unix socket path (sun_path holds 108 bytes with its NUL); this uWS build crashes on longer ones. */
export const MAX_UNIX_PATH_BYTES = 107;

export interface HttpServerOptions {
  readonly uws: UwsModule;
  readonly routes: readonly RouteDef[];
  readonly rootRules: readonly RootRule[];
  readonly limiter: RateLimiter | undefined;
  readonly activityAllowlist: IpAllowlist;
  /** Whose X-Forwarded-For is believed (clientAddress.ts); unset: nobody's. */
  readonly clientAddresses?: ClientAddresses;
  /** Called before each routed request: the engine host moves its commands along (EngineHost.poll). */
  readonly betweenRequests?: () => void;
  /**
   * When the engine's state is durable (CommandGateway): the handlers of routes marked `engineState` run only
   * then. Unset: they run at once (a server without an engine).
   */
  readonly durable?: Pick<CommandGateway, 'atDurableState' | 'whenDurable'>;
  readonly clock: () => number;
  readonly maxBodyBytes?: number;
  /** Which browser origins may call (cors.ts); undefined: no CORS headers. */
  readonly cors?: CorsPolicy;
  /** Bodies of at least this many bytes are compressed when the client accepts it; 0 or undefined: never. */
  readonly compressMinBytes?: number;
  /** Called once per answered request (metrics, logs). */
  readonly onResponse?: (route: RouteDef | undefined, status: number, startedAt: number) => void;
  /** Called with unexpected handler failures (they are answered with a 500). */
  readonly onError?: (error: unknown, route: RouteDef) => void;
}

export interface HttpServer {
  readonly app: TemplatedApp;
  readonly compiled: readonly CompiledRoute[];
  listen(host: string, port: number): Promise<number>;
  /** Listens on a Unix socket for the header edge; a request's IP is then the one the edge reports. */
  listenUnix(path: string): Promise<void>;
  /** Stops accepting connections; requests in flight still finish. */
  stopListening(): void;
  /** Resolves when no request is in flight. */
  drained(): Promise<void>;
  readonly inFlight: number;
}

const SURFACE_PREFIX: Readonly<Record<Surface, string>> = { catalog: '/catalog', activity: '/activity', clob: '/clob', service: '' };

/** `/markets/{id}` → `/markets/:id` (uWS's pattern syntax), and the parameter names in order. */
function uwsPattern(path: string): { pattern: string; names: string[] } {
  const names: string[] = [];
  const pattern = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return `:${name}`;
  });
  return { pattern, names };
}

interface RequestState {
  /** A response was written or the client aborted: nothing more may be written. */
  answered: boolean;
  /** The request no longer counts as in flight. */
  finished: boolean;
  readingBody: boolean;
  readonly out: ResponseContext;
}

/** What a request asks of its response beyond the route's answer, read from its head once. */
interface ResponseContext {
  /** A HEAD request: headers only. */
  readonly head: boolean;
  readonly cors: Readonly<Record<string, string>> | undefined;
  readonly coding: ContentCoding | undefined;
  /** `keep-alive` or `close`, echoed when the request said so. */
  readonly connection: string | undefined;
}

interface Incoming {
  readonly method: RequestMethod;
  readonly path: string;
  readonly rawQuery: string;
  readonly headers: Record<string, string>;
  readonly params: Record<string, string>;
  readonly ip: string;
}

/**
 * Where the server's connections come from. `unix`: it has only ever listened on the edge's Unix socket, so
 * every connection is the edge's and has no address (uWS reports an empty one); the address is then not read,
 * since each read costs a native call and an ArrayBuffer (about 1.3 µs, measured).
 */
type Listening = 'none' | 'unix' | 'tcp' | 'both';

function readIncoming(res: HttpResponse, req: HttpRequest, method: RequestMethod, names: readonly string[], prefixLength: number, listening: Listening, addresses: ClientAddresses): Incoming {
  const headers: Record<string, string> = {};
  let forwardedFor: string | undefined;
  req.forEach((key, value) => {
    headers[key] = value;
    if (key === FORWARDED_FOR_HEADER) forwardedFor = forwardedFor === undefined ? value : `${forwardedFor},${value}`;
  });
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) params[names[i] as string] = decodeURIComponentSafe(req.getParameter(i) ?? '');
  const url = req.getUrl();
  const socketIp = listening === 'unix' ? '' : Buffer.from(res.getRemoteAddressAsText()).toString();
  return {
    method,
    path: url.slice(prefixLength) || '/',
    rawQuery: req.getQuery() ?? '',
    headers,
    params,
    // A TCP connection always has an address; an empty one is a Unix-socket connection, i.e. the edge.
    ip: addresses.clientOf(clientIpOf(headers, socketIp, listening !== 'tcp' && listening !== 'none' && socketIp === ''), forwardedFor),
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { uws, limiter, clock } = options;
  const addresses = options.clientAddresses ?? new ClientAddresses([]);
  const betweenRequests = options.betweenRequests;
  const durable = options.durable;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const compressMin = options.compressMinBytes ?? 0;
  const cors = options.cors;
  const app = uws.App();
  const compiled = options.routes.map(compileRoute);
  let inFlight = 0;
  let drainWaiters: (() => void)[] = [];
  let listenSocket: us_listen_socket | null = null;
  let listening: Listening = 'none';

  /** Marks a request finished, once: it no longer counts as in flight. */
  const finish = (state: RequestState): void => {
    if (state.finished) return;
    state.finished = true;
    inFlight -= 1;
    if (inFlight === 0 && drainWaiters.length > 0) {
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const w of waiters) w();
    }
  };

  const send = (res: HttpResponse, state: RequestState, route: CompiledRoute, reply: Reply, startedAt: number): void => {
    finish(state);
    if (state.answered) return;
    state.answered = true;
    let payload: string | Buffer;
    let contentType = 'application/json';
    let status = reply.status;
    if (status === 200 && reply.encoded !== undefined) {
      payload = reply.encoded;
    } else if (status === 200) {
      try {
        payload = route.stringify(reply.body);
        if (route.textBody) contentType = 'text/plain; charset=utf-8';
      } catch (error) {
        // A body that does not fit its own schema is a bug: answer 500 rather than leave the client waiting.
        options.onError?.(error, route.def);
        const failed = failure(route.def.surface, new ApiError(route.def.surface === 'activity' ? 'internal_db' : 'internal'));
        status = failed.status;
        payload = JSON.stringify(failed.body);
      }
    } else {
      payload = JSON.stringify(reply.body);
    }
    write(res, state.out, status, contentType, status === reply.status ? reply.headers : undefined, payload, false);
    options.onResponse?.(route.def, status, startedAt);
  };

  /**
   * A reply that comes back later (a handler's promise) is sent in the check phase that follows (setImmediate),
   * not where its promise settles: that is often inside uWS's dispatch of another connection's request (the
   * engine host's poll() between requests releases the replies of every append that became durable), and uWS
   * 20.30 corks one socket at a time, so a response written while another socket holds the cork goes out
   * uncorked, one send() per piece (the status, each header's name, separator and value, the body). Under load
   * that was 6.6 send() calls per request on the request thread; sent from here, each response is one.
   * Everything that settles in one turn of the event loop goes out together once uWS's dispatch is over; one
   * send that throws (a bug) is reported and the others still go.
   */
  let later: { res: HttpResponse; state: RequestState; route: CompiledRoute; reply: Reply; startedAt: number }[] = [];
  let laterScheduled = false;
  const sendLaterNow = (): void => {
    laterScheduled = false;
    const sends = later;
    later = [];
    for (const { res, state, route, reply, startedAt } of sends) {
      try {
        send(res, state, route, reply, startedAt);
      } catch (error) {
        options.onError?.(error, route.def);
      }
    }
  };
  const sendLater = (res: HttpResponse, state: RequestState, route: CompiledRoute, reply: Reply, startedAt: number): void => {
    later.push({ res, state, route, reply, startedAt });
    if (!laterScheduled) {
      laterScheduled = true;
      setImmediate(sendLaterNow);
    }
  };

  /** The one way a response is written (see the contract at the top). */
  const write = (res: HttpResponse, out: ResponseContext, status: number, contentType: string, headers: Readonly<Record<string, string>> | undefined, payload: string | Buffer, close: boolean): void => {
    const large = compressMin > 0 && payload.length >= compressMin;
    const coding = large && !out.head ? out.coding : undefined;
    const body = coding === undefined ? payload : compress(payload, coding);
    res.cork(() => {
      res.writeStatus(statusLine(status));
      if (status !== 204 && (headers === undefined || headers['content-type'] === undefined)) res.writeHeader('content-type', contentType);
      if (headers !== undefined) for (const key in headers) res.writeHeader(key, headers[key] as string);
      if (coding !== undefined) res.writeHeader('content-encoding', coding);
      if (large) res.writeHeader('vary', 'accept-encoding');
      const corsHeaders = out.cors;
      if (corsHeaders !== undefined) for (const key in corsHeaders) res.writeHeader(key, corsHeaders[key] as string);
      if (out.connection !== undefined) res.writeHeader('connection', out.connection);
      // uWS 20.30's endWithoutBody(length) closes the connection unanswered, and with any argument it writes a
      // bogus Content-Length (measured): a HEAD's length goes as a header of our own. Neither is ever closing.
      if (status === 204) res.endWithoutBody();
      else if (out.head) res.writeHeader('content-length', String(Buffer.byteLength(body))).endWithoutBody();
      else res.end(body, close);
    });
  };

  const responseContext = (head: boolean, headers: Readonly<Record<string, string | undefined>>): ResponseContext => {
    const connection = headers.connection;
    return {
      head,
      cors: cors === undefined ? undefined : corsResponseHeaders(cors, headers.origin),
      coding: compressMin > 0 ? chooseCoding(headers['accept-encoding']) : undefined,
      connection: connection === 'keep-alive' || connection === 'close' ? connection : undefined,
    };
  };

  const failure = (surface: Surface, error: ApiError): Reply => ({ status: error.status, body: errorBody(surface, error), headers: error.headers });

  const toReply = (surface: Surface, route: CompiledRoute, error: unknown): Reply => {
    if (error instanceof ApiError) return failure(surface, error);
    if (error instanceof ReadModelInputError) return failure(surface, new ApiError('bad_request', { detail: error.message }));
    if (error instanceof Error && error.name === 'EngineStoppedError') return failure(surface, new ApiError('unavailable', { detail: 'the engine is stopped; retry later' }));
    // An API node that cannot reach the engine role, or lost a command's answer (cluster/engineClient.ts).
    if (error instanceof Error && error.name === 'EngineUnavailableError') return failure(surface, new ApiError('unavailable', { detail: error.message }));
    options.onError?.(error, route.def);
    return failure(surface, new ApiError(surface === 'activity' ? 'internal_db' : 'internal'));
  };

  /** Admission checks that need no body: rate limits, allowlist, and (without a guard) path parameters and query. Returns the query, validated unless guarded. */
  const admit = (route: CompiledRoute, inc: Incoming, query: URLSearchParams, now: number): Record<string, unknown> => {
    const def = route.def;
    if (limiter !== undefined) {
      const key = callerKey(inc);
      const windows = def.limits === undefined ? [def.surface] : [def.surface, ...def.limits];
      const admission = limiter.admit(windows, key, now);
      if (!admission.ok) throw new ApiError('rate_limited', {}, { 'retry-after': String(admission.retryAfterSec) });
    }
    if (def.surface === 'activity' && !options.activityAllowlist.allows(inc.ip)) throw new ApiError('ip_not_allowlisted');
    if (def.strictQuery === true) {
      const unknown = unknownParam(route, query);
      if (unknown !== undefined) throw new ApiError('unknown_field', { name: unknown });
    }
    if (def.guard !== undefined) return Object.fromEntries(query);
    checkParams(route, inc.params);
    return checkQuery(route, query);
  };

  const run = (res: HttpResponse, state: RequestState, route: CompiledRoute, inc: Incoming, rawBody: string, query: URLSearchParams, q: Record<string, unknown>, startedAt: number): void => {
    const surface = route.def.surface;
    let result: Reply | Promise<Reply>;
    const request: { -readonly [K in keyof ApiRequest]: ApiRequest[K] } = { method: inc.method, path: inc.path, params: inc.params, query: q, rawQuery: query, body: undefined, rawBody, headers: inc.headers, ip: inc.ip, receivedAt: startedAt };
    let guarded = false;
    // A refusal after the guard: what the guard left for later is judged first (RouteDef.confirm), and its
    // refusal, if any, is the answer.
    const refusal = (error: unknown): Reply => {
      const confirm = route.def.confirm;
      if (guarded && confirm !== undefined) {
        try {
          confirm(request);
        } catch (refused) {
          return toReply(surface, route, refused);
        }
      }
      return toReply(surface, route, error);
    };
    try {
      const guard = route.def.guard;
      if (guard !== undefined) {
        // The same request object goes on to the handler, so what the guard learnt is found again there.
        guard(request);
        guarded = true;
        checkParams(route, inc.params);
        request.query = checkQuery(route, query);
      }
      request.body = checkBody(route, rawBody);
      result = route.def.engineState === true && durable !== undefined && !durable.atDurableState ? durableState(durable).then(() => route.def.handler(request)) : route.def.handler(request);
    } catch (error) {
      send(res, state, route, refusal(error), startedAt);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (reply) => sendLater(res, state, route, reply, startedAt),
        (error: unknown) => sendLater(res, state, route, refusal(error), startedAt),
      );
    } else {
      send(res, state, route, result, startedAt);
    }
  };

  /** Handles one request for a route already chosen. */
  const handle = (res: HttpResponse, route: CompiledRoute, inc: Incoming): void => {
    const startedAt = clock();
    const state: RequestState = { answered: false, finished: false, readingBody: false, out: responseContext(inc.method === 'HEAD', inc.headers) };
    inFlight += 1;
    res.onAborted(() => {
      // The client is gone: nothing may be written. A handler already running still finishes (its command
      // may already be in the log); a body still arriving never reaches one.
      state.answered = true;
      if (state.readingBody) finish(state);
    });
    const surface = route.def.surface;
    const query = new URLSearchParams(inc.rawQuery);
    let q: Record<string, unknown> = {};
    let refused: unknown;
    try {
      q = admit(route, inc, query, startedAt);
    } catch (error) {
      refused = error;
    }
    // A refused request with a body is answered once its body has arrived, so the connection stays usable
    // for the client's next request (answering early would leave unread body bytes on a keep-alive socket).
    const proceed = (rawBody: string): void => {
      if (refused !== undefined) send(res, state, route, toReply(surface, route, refused), startedAt);
      else run(res, state, route, inc, rawBody, query, q, startedAt);
    };
    if (inc.method === 'GET' || inc.method === 'HEAD') {
      proceed('');
      return;
    }
    const declared = Number(inc.headers['content-length'] ?? '0');
    if (declared > maxBody) {
      refuseTooLarge(res, state, route, startedAt);
      return;
    }
    state.readingBody = true;
    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (state.answered) return;
      size += chunk.byteLength;
      if (size > maxBody) {
        state.readingBody = false;
        refuseTooLarge(res, state, route, startedAt);
        return;
      }
      if (isLast && chunks.length === 0) {
        // The whole body in one chunk (the usual case): decoded straight from uWS's buffer, which stays valid
        // for the duration of this callback, instead of copied twice first.
        state.readingBody = false;
        proceed(refused === undefined ? Buffer.from(chunk).toString('utf8') : '');
        return;
      }
      if (refused === undefined) chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        state.readingBody = false;
        proceed(Buffer.concat(chunks).toString('utf8'));
      }
    });
  };

  const refuseTooLarge = (res: HttpResponse, state: RequestState, route: CompiledRoute, startedAt: number): void => {
    finish(state);
    if (state.answered) return;
    state.answered = true;
    const reply = failure(route.def.surface, new ApiError('body_too_large', { limit: maxBody }));
    write(res, state.out, reply.status, 'application/json', undefined, JSON.stringify(reply.body), true);
    options.onResponse?.(route.def, reply.status, startedAt);
  };

  /** The methods each registered pattern has, for Allow, OPTIONS and 405. */
  const methodsByPattern = new Map<string, Set<Method>>();

  const register = (method: Method, pattern: string, names: readonly string[], prefixLength: number, choose: (inc: Incoming) => CompiledRoute): void => {
    const handlerFor = (as: RequestMethod) => (res: HttpResponse, req: HttpRequest): void => {
      betweenRequests?.();
      const inc = readIncoming(res, req, as, names, prefixLength, listening, addresses);
      handle(res, choose(inc), inc);
    };
    if (method === 'GET') {
      app.get(pattern, handlerFor('GET'));
      app.head(pattern, handlerFor('HEAD'));
    } else if (method === 'POST') app.post(pattern, handlerFor('POST'));
    else app.del(pattern, handlerFor('DELETE'));
    const methods = methodsByPattern.get(pattern) ?? new Set<Method>();
    methods.add(method);
    methodsByPattern.set(pattern, methods);
  };

  /** A response the server writes without a route (OPTIONS, 404, 405, 501): read what it needs of `req` first. */
  const answerWithoutRoute = (res: HttpResponse, req: HttpRequest, allow: string | undefined): void => {
    const method = req.getMethod().toUpperCase();
    // These answers are small: Accept-Encoding is not read.
    const headers = { origin: orUndefined(req.getHeader('origin')), connection: orUndefined(req.getHeader('connection')) };
    const unknownMethod = orUndefined(req.getHeader(METHOD_HEADER));
    const preflight = method === 'OPTIONS' && headers.origin !== undefined && req.getHeader('access-control-request-method') !== '';
    const out = responseContext(method === 'HEAD', headers);
    let answered = false;
    res.onAborted(() => {
      answered = true;
    });
    let status: number;
    let extra: Record<string, string> | undefined;
    let body = '';
    if (allow === undefined && unknownMethod !== undefined) {
      status = 501;
      body = JSON.stringify(errorBody('service', new ApiError('not_implemented', { method: unknownMethod.slice(0, 64) })));
    } else if (allow === undefined) {
      status = 404;
      body = NOT_FOUND_BODY;
    } else if (method === 'OPTIONS') {
      status = 204;
      extra = preflight && cors !== undefined ? { allow, ...preflightHeaders(cors, headers.origin, allow) } : { allow };
    } else {
      status = 405;
      extra = { allow };
      body = JSON.stringify(errorBody('service', new ApiError('method_not_allowed')));
    }
    const startedAt = clock();
    // Whatever body the request has is read to its end first, so the connection stays usable for the next.
    res.onData((_chunk, isLast) => {
      if (!isLast || answered) return;
      answered = true;
      // A preflight's CORS headers are the preflight's own (in `extra`), not those of an actual response.
      write(res, preflight ? { ...out, cors: undefined } : out, status, 'application/json', extra, body, false);
      options.onResponse?.(undefined, status, startedAt);
    });
  };

  // Prefixed mounts: one surface each.
  for (const route of compiled) {
    const prefix = SURFACE_PREFIX[route.def.surface];
    const { pattern, names } = uwsPattern(route.def.path);
    if (prefix === '') continue;
    // A surface's own root answers with and without the trailing slash (/clob and /clob/).
    if (pattern === '/') register(route.def.method, prefix, names, prefix.length, () => route);
    register(route.def.method, prefix + pattern, names, prefix.length, () => route);
  }
  // Root mounts: a path one surface has goes to it; a shared path goes through its rule.
  const byRootKey = new Map<string, CompiledRoute[]>();
  for (const route of compiled) {
    const key = `${route.def.method} ${route.def.path}`;
    byRootKey.set(key, [...(byRootKey.get(key) ?? []), route]);
  }
  for (const [key, candidates] of byRootKey) {
    const first = candidates[0] as CompiledRoute;
    const { pattern, names } = uwsPattern(first.def.path);
    if (candidates.length === 1) {
      register(first.def.method, pattern, names, 0, () => first);
      continue;
    }
    const rule = options.rootRules.find((r) => `${r.method} ${r.path}` === key);
    if (rule === undefined) throw new Error(`two surfaces define ${key} and no root rule chooses between them`);
    const bySurface = new Map(candidates.map((c) => [c.def.surface, c]));
    register(first.def.method, pattern, names, 0, (inc) => {
      const surface = rule.choose({ params: inc.params, query: new URLSearchParams(inc.rawQuery) });
      const chosen = bySurface.get(surface);
      if (chosen === undefined) throw new Error(`root rule for ${key} chose ${surface}, which does not define it`);
      return chosen;
    });
  }
  for (const [pattern, methods] of methodsByPattern) {
    const allow = allowHeader(methods);
    app.options(pattern, (res, req) => answerWithoutRoute(res, req, allow));
    app.any(pattern, (res, req) => answerWithoutRoute(res, req, allow));
  }
  app.any('/*', (res, req) => answerWithoutRoute(res, req, undefined));

  return {
    app,
    compiled,
    get inFlight() {
      return inFlight;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        if (listenSocket !== null) throw new Error('the HTTP server is already listening');
        app.listen(host, port, (socket) => {
          if (socket === false) {
            reject(new Error(`cannot listen on ${host}:${port}`));
            return;
          }
          listenSocket = socket;
          listening = listening === 'none' || listening === 'tcp' ? 'tcp' : 'both';
          resolve(uws.us_socket_local_port(socket));
        });
      });
    },
    listenUnix(path) {
      return new Promise((resolve, reject) => {
        if (listenSocket !== null) throw new Error('the HTTP server is already listening');
        if (Buffer.byteLength(path) > MAX_UNIX_PATH_BYTES) throw new Error(`Unix socket path longer than ${MAX_UNIX_PATH_BYTES} bytes: ${path}`);
        // Typed as never false, but the callback does get false when the bind fails.
        app.listen_unix((socket: us_listen_socket | false) => {
          if (socket === false) {
            reject(new Error(`cannot listen on the Unix socket ${path}`));
            return;
          }
          listenSocket = socket;
          listening = listening === 'none' || listening === 'unix' ? 'unix' : 'both';
          resolve();
        }, path);
      });
    },
    stopListening() {
      if (listenSocket !== null) {
        uws.us_listen_socket_close(listenSocket);
        listenSocket = null;
      }
    },
    drained() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => drainWaiters.push(resolve));
    },
  };
}

/**
 * Rate limits count per API key when the request names one, else per client IP. Header names arrive with
 * hyphens: uWS 20.30 cannot take underscores, so the edge in front rewrites SVC_API_KEY to svc-api-key.
 */
function callerKey(inc: Incoming): string {
  const apiKey = inc.headers['svc-api-key'] ?? inc.headers['poly-api-key'];
  return apiKey !== undefined && apiKey !== '' ? apiKeyRateKey(apiKey) : `ip:${inc.ip}`;
}

const NOT_FOUND_BODY = JSON.stringify({ error: 'not found' });

function orUndefined(value: string): string | undefined {
  return value === '' ? undefined : value;
}

/** `Allow` for a path with these route methods: HEAD with GET, and OPTIONS always. */
function allowHeader(methods: ReadonlySet<Method>): string {
  const all: string[] = [...methods];
  if (methods.has('GET')) all.push('HEAD');
  all.push('OPTIONS');
  return all.sort().join(', ');
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd();
}
