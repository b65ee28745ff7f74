// The HTTP port of the roles that serve no API (engine, projector): liveness, readiness and metrics only, in
// the same shapes as the front's /health, /ready and /metrics, so one health check and one scrape job fit
// every role.

import { createServer, type Server } from 'node:http';
import { listenTcp } from '../../api/http/listenTcp.js';
import type { ServiceMetrics } from '../metrics.js';
import type { Readiness } from '../serviceRoutes.js';

export interface RoleHttp {
  readonly port: number;
  close(): Promise<void>;
}

export async function startRoleHttp(options: { host: string; port: number; role: string; metrics: ServiceMetrics; ready: () => Readiness }): Promise<RoleHttp> {
  const json = (status: number, body: unknown): { status: number; type: string; text: string } => ({ status, type: 'application/json', text: JSON.stringify(body) });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (r: { status: number; type: string; text: string }): void => {
      res.writeHead(r.status, { 'content-type': r.type, 'content-length': Buffer.byteLength(r.text) });
      res.end(req.method === 'HEAD' ? undefined : r.text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(json(405, { error: `${req.method ?? '?'} is not allowed here` }));
    if (path === '/health') return send(json(200, { status: 'ok', role: options.role }));
    if (path === '/ready') {
      const r = options.ready();
      return send(json(r.ready ? 200 : 503, r));
    }
    if (path === '/metrics') {
      options.metrics.text().then(
        (text) => send({ status: 200, type: 'text/plain; version=0.0.4', text }),
        (error: unknown) => send(json(500, { error: (error as Error).message })),
      );
      return;
    }
    send(json(404, { error: `no such endpoint on the ${options.role} role: ${path ?? ''} (it serves /health, /ready and /metrics)` }));
  });
  const port = await listenTcp(server, options.port, options.host);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
