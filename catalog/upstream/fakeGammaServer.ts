// A Gamma-shaped upstream over in-memory objects, on node:http: GET /markets, /events, /series, /tags with
// limit (default 20, at most maxLimit), offset, order (any field; updatedAt and the other dates compare as
// dates), ascending (default false when order is given, as a descending "top" list is the usual use), and
// closed (markets and events: only open ones unless closed=true, as the real upstream does). For tests and
// benchmarks of the sync, and for trying the sync locally. Failures can be scripted per request.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { idNumber, microsOf, numberOf, type GammaObject } from './gammaValues.js';

export type FakeResource = 'markets' | 'events' | 'series' | 'tags';
const RESOURCES: readonly FakeResource[] = ['markets', 'events', 'series', 'tags'];

export interface FakeRequest {
  readonly resource: string;
  readonly params: URLSearchParams;
}

/** A scripted answer: when `match` accepts a request, answer `status` (with `body`) instead of the data. */
export interface FakeFailure {
  readonly match: (request: FakeRequest) => boolean;
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** How many matching requests it answers (default 1). */
  times?: number;
}

export interface FakeGammaOptions {
  readonly maxLimit?: number;
}

function sortKey(object: GammaObject, field: string): number | string {
  const value = object[field];
  if (field === 'id') return idNumber(String(value));
  const micros = microsOf(value);
  if (micros !== undefined) return micros;
  return numberOf(value) ?? (typeof value === 'string' ? value : -Infinity);
}

export class FakeGamma {
  readonly data: Record<FakeResource, GammaObject[]> = { markets: [], events: [], series: [], tags: [] };
  readonly requests: FakeRequest[] = [];
  readonly failures: FakeFailure[] = [];
  private readonly views = new Map<string, GammaObject[]>();
  private server: Server | undefined;
  private readonly maxLimit: number;

  constructor(data: Partial<Record<FakeResource, readonly GammaObject[]>> = {}, options: FakeGammaOptions = {}) {
    for (const resource of RESOURCES) this.data[resource] = [...(data[resource] ?? [])];
    this.maxLimit = options.maxLimit ?? 500;
  }

  /** Replaces the object with the same id, or appends it. */
  upsert(resource: FakeResource, object: GammaObject): void {
    const list = this.data[resource];
    const index = list.findIndex((o) => o.id === object.id);
    if (index === -1) list.push(object);
    else list[index] = object;
    this.views.clear();
  }

  /** Removes the object with this id (as an upstream deletion would); true when there was one. */
  remove(resource: FakeResource, id: string): boolean {
    const list = this.data[resource];
    const index = list.findIndex((o) => o.id === id);
    if (index === -1) return false;
    list.splice(index, 1);
    this.views.clear();
    return true;
  }

  fail(failure: FakeFailure): void {
    this.failures.push(failure);
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => this.answer(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private view(resource: FakeResource, params: URLSearchParams): GammaObject[] {
    const closedParam = params.get('closed');
    const closed = resource === 'markets' || resource === 'events' ? (closedParam === 'true' ? 'closed' : 'open') : 'all';
    const order = params.get('order') ?? 'id';
    const ascending = params.get('ascending') ?? (params.has('order') ? 'false' : 'true');
    const key = `${resource}|${closed}|${order}|${ascending}`;
    let view = this.views.get(key);
    if (view === undefined) {
      const picked = this.data[resource].filter((o) => closed === 'all' || (o.closed === true) === (closed === 'closed'));
      const keyed = picked.map((o) => ({ o, k: sortKey(o, order), id: idNumber(String(o.id)) }));
      const sign = ascending === 'true' ? 1 : -1;
      keyed.sort((a, b) => sign * (a.k < b.k ? -1 : a.k > b.k ? 1 : a.id - b.id));
      view = keyed.map((x) => x.o);
      this.views.set(key, view);
    }
    return view;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const resource = url.pathname.replace(/^\/+|\/+$/g, '');
    const request = { resource, params: url.searchParams };
    this.requests.push(request);
    const failure = this.failures.find((f) => (f.times ?? 1) > 0 && f.match(request));
    if (failure !== undefined) {
      failure.times = (failure.times ?? 1) - 1;
      res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
      res.end(failure.body ?? JSON.stringify({ error: 'scripted failure' }));
      return;
    }
    if (req.method !== 'GET' || !(RESOURCES as readonly string[]).includes(resource)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'not found error', error: 'not found' }));
      return;
    }
    const limit = Math.min(this.maxLimit, Math.max(0, Number(url.searchParams.get('limit') ?? 20) || 0));
    const offset = Math.max(0, Number(url.searchParams.get('offset') ?? 0) || 0);
    const page = this.view(resource as FakeResource, url.searchParams).slice(offset, offset + limit);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(page));
  }
}
