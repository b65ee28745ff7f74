// The embedded ClickHouse served over ClickHouse's own HTTP interface (the protocol of port 8123), so that
// ClickHouse clients (curl, @clickhouse/client, clickhouse-connect, BI tools) reach the data of a service
// whose chDB data directory no other process can open. Two users: the analyst, who reads the exchange
// database and nothing else (analystGate.ts, with readonly = 1 and per-query limits, one query at a time by
// default); and the service user, read-write, with which other processes of the service use this one as
// their ClickHouse server (--clickhouse-mode server). Either is off while its password is unset.
//
// A plain node:http server on its own port, not the uWS public server: it is a separate protocol for
// separate users, and its requests are few and heavy.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate, gzipSync, deflateSync } from 'node:zlib';
import type { Readable } from 'node:stream';
import { ChdbStatements, type AnalystLimits, type StatementResult } from './chdbQueries.js';
import { ClickHouseHttpError, errorBody, fromEngineError, refuse, statusOf } from './chErrors.js';
import { contentTypeOf, credentialsOf, readRequest, statementText, type ChHttpRequest } from './chHttpRequest.js';
import { QuerySlots } from './querySlots.js';

export interface ClickHouseHttpUser {
  readonly name: string;
  readonly password: string;
  readonly role: 'analyst' | 'service';
}

export interface ClickHouseHttpOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The chDB data path of the service's client (storage/clickhouse.ts chdbPathOf()). */
  readonly chdbPath: string;
  /** The exchange database: the analyst's only one, and the service user's default. */
  readonly database: string;
  readonly users: readonly ClickHouseHttpUser[];
  readonly analystLimits: AnalystLimits;
  readonly analystConcurrentQueries: number;
  readonly analystQueuedQueries: number;
  /**
   * Read-your-writes for analysts: called before each analyst query, it resolves once the tables hold what the
   * service had acknowledged when the query arrived (the projector caught up, cutting short its pause between
   * light-load commits). A rejection (the projector did not get there in its wait) lets the query run on what
   * the tables hold. Unset: queries run at once.
   */
  readonly caughtUp?: () => Promise<void>;
  readonly onError?: (error: unknown) => void;
}

export interface ClickHouseHttpServer {
  readonly port: number;
  /** Analyst queries running or waiting for a turn. */
  analystQueriesInFlight(): number;
  close(): Promise<void>;
}

/** Largest request body: an analyst's statement, or a service user's INSERT with its data. */
const MAX_ANALYST_BODY = 1 << 20;
const MAX_SERVICE_BODY = 512 << 20;
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DISPLAY_NAME = 'prediction-exchange';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export async function startClickHouseHttp(options: ClickHouseHttpOptions): Promise<ClickHouseHttpServer> {
  const statements = new ChdbStatements(options.chdbPath, options.database);
  const version = await engineVersion(options.chdbPath);
  const slots = new QuerySlots(options.analystConcurrentQueries, options.analystQueuedQueries);
  const users = new Map(options.users.map((u) => [u.name, { ...u, digest: digest(u.password) }]));

  const authenticate = (req: IncomingMessage, url: URL): ClickHouseHttpUser => {
    const { user, password } = credentialsOf(url, req.headers);
    const known = users.get(user);
    // Compared by digest so the time taken says nothing about the password's length or prefix.
    if (known === undefined || !timingSafeEqual(known.digest, digest(password))) throw refuse.authentication(user);
    return known;
  };

  const run = async (user: ClickHouseHttpUser, request: ChHttpRequest, query: string): Promise<StatementResult> => {
    const statement = { user: user.name, query, params: request.params, settings: request.settings, defaultFormat: request.defaultFormat };
    if (user.role === 'service') {
      const database = request.database ?? options.database;
      if (!DATABASE_NAME.test(database)) throw refuse.unknownDatabase(database);
      return statements.runAsService(statement, database);
    }
    if (request.database !== undefined && request.database !== options.database) {
      throw refuse.accessDenied(user.name, `To execute this query, it's necessary to have the grant SELECT ON ${request.database}.*; the analyst reads only the ${options.database} database`);
    }
    await options.caughtUp?.().catch(() => undefined);
    const release = await slots.acquire();
    try {
      return await statements.runAsAnalyst(statement, options.analystLimits);
    } finally {
      release();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://clickhouse');
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    res.setHeader('X-ClickHouse-Server-Display-Name', DISPLAY_NAME);
    res.setHeader('X-ClickHouse-Query-Id', queryId);
    try {
      if (url.pathname === '/ping' || (url.pathname === '/' && (req.method === 'GET' || req.method === 'HEAD') && !url.searchParams.has('query'))) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
        req.resume();
        return;
      }
      if (url.pathname !== '/') {
        req.resume();
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' }).end(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'POST') throw refuse.badArguments(`The method ${req.method ?? ''} is not supported; use GET or POST`);
      const user = authenticate(req, url);
      const request = readRequest(url, req.headers);
      const body = await readBody(req, user.role === 'analyst' ? MAX_ANALYST_BODY : MAX_SERVICE_BODY);
      const query = statementText(request.urlQuery, body);
      if (query.trim() === '') throw refuse.emptyQuery();
      const result = await run(user, request, query);
      const summary = { read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead), written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: String(result.body.length), elapsed_ns: String(Math.round(result.elapsedSec * 1e9)) };
      const headers: Record<string, string> = {
        'Content-Type': contentTypeOf(result.format),
        'X-ClickHouse-Format': result.format,
        'X-ClickHouse-Timezone': 'UTC',
        'X-ClickHouse-Summary': JSON.stringify(summary),
      };
      const encoding = request.compression ? chooseEncoding(req.headers['accept-encoding']) : undefined;
      let payload = result.body;
      if (encoding === 'gzip') payload = gzipSync(payload);
      else if (encoding === 'deflate') payload = deflateSync(payload);
      if (encoding !== undefined) headers['Content-Encoding'] = encoding;
      res.writeHead(200, headers).end(payload);
    } catch (caught) {
      const error = fromEngineError(caught);
      if (!(caught instanceof ClickHouseHttpError) && !/^Code: \d+\./.test(caught instanceof Error ? caught.message : '')) options.onError?.(caught);
      req.resume();
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.removeHeader('Content-Encoding');
      res.writeHead(statusOf(error), { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(error.code) }).end(errorBody(error, version));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.onError?.(error);
      res.destroy();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    analystQueriesInFlight: () => slots.inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function engineVersion(chdbPath: string): Promise<string> {
  const { Session } = await import('chdb');
  const session = new Session(chdbPath);
  try {
    return (await session.queryAsync('SELECT version()', { format: 'TSVRaw' })).text().trim();
  } finally {
    session.close();
  }
}

function chooseEncoding(accept: string | undefined): 'gzip' | 'deflate' | undefined {
  const offered = (accept ?? '').split(',').map((part) => part.split(';')[0]?.trim().toLowerCase());
  if (offered.includes('gzip')) return 'gzip';
  if (offered.includes('deflate')) return 'deflate';
  return undefined;
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  let source: Readable = req;
  if (encoding === 'gzip') source = req.pipe(createGunzip());
  else if (encoding === 'deflate') source = req.pipe(createInflate());
  else if (encoding === 'br') source = req.pipe(createBrotliDecompress());
  else if (encoding !== '' && encoding !== 'identity') throw refuse.notImplemented(`Content-Encoding ${encoding} is not supported; use gzip, deflate or br`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += (chunk as Buffer).length;
      if (size > limit) throw refuse.bodyTooLarge(limit);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ClickHouseHttpError) throw error;
    throw refuse.cannotDecompress(error instanceof Error ? error.message : String(error));
  }
  return Buffer.concat(chunks).toString('utf8');
}
