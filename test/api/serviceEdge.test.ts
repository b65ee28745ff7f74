// The service behind its header edge (server/publicListener.ts), end to end through the public port:
// underscore header names get answers instead of silence, the client IP reaches the activity allowlist and
// cannot be spoofed with x-pmx-client-ip, keep-alive POSTs, the edge's own answers, edge metrics, the Unix
// socket's life (stale one removed, live one refused, none left after close, a too-long path replaced),
// and --header-edge false with uWS on the port itself.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { us_listen_socket } from 'uWebSockets.js';
import { MAX_UNIX_PATH_BYTES } from '../../api/http/httpServer.js';
import { loadUws } from '../../api/http/uwsLoader.js';
import { removeStaleSocket, uwsSocketPath } from '../../server/publicListener.js';
import { startTestService } from '../support/serviceFixture.js';

/** A fetch that fails the test after 5 s instead of hanging, which is what uWS 20.30 alone does. */
function fetchSoon(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
}

/** Writes raw bytes to the port and returns everything read until the server closes or 5 s pass. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(got).toString('latin1'));
    });
  });
}

const UNDERSCORE_HEADERS = { POLY_ADDRESS: '0x' + 'ab'.repeat(20), SVC_API_KEY: 'y', POLY_API_KEY: 'k_1', POLY_SIGNATURE: 's_1' };

t.test('through the edge: underscore header names are answered; edge errors and metrics', async (t) => {
  const { baseUrl, service, close } = await startTestService();
  t.teardown(close);
  t.ok(service.edge !== undefined, 'the edge runs by default');
  t.ok(existsSync(join(service.config.dataDir, 'http.sock')), 'uWS listens on <data-dir>/http.sock');

  const time = await fetchSoon(`${baseUrl}/clob/time`, { headers: UNDERSCORE_HEADERS });
  t.equal(time.status, 200);
  t.ok(Number(await time.text()) > 0, 'GET /clob/time answers');
  const health = await fetchSoon(`${baseUrl}/health`, { headers: UNDERSCORE_HEADERS });
  t.same(await health.json(), { status: 'ok', uwsNative: true });
  t.ok((service.edge?.stats.underscoreHeads ?? 0) >= 2, 'the edge counted the rewritten heads');

  t.match(await raw(service.port, 'GET /health HTTP/2.0\r\nHost: h\r\n\r\n'), /^HTTP\/1\.1 505 /, "an HTTP/2.0 request line gets the edge's 505");
  t.match(await raw(service.port, 'GET /health HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n'), /^HTTP\/1\.1 400 [^]*\{"error":"malformed request"\}$/, 'an ambiguous request gets 400');

  const metrics = await (await fetchSoon(`${baseUrl}/metrics`)).text();
  t.match(metrics, /http_edge_underscore_requests_total [1-9]/);
  t.match(metrics, /http_edge_refused_total\{code="version_not_supported"\} 1/);
  t.match(metrics, /http_edge_refused_total\{code="malformed_request"\} 1/);
  t.match(metrics, /http_edge_connections_open \d+/);
  t.match(metrics, /http_edge_held_requests_total \d+/);
  t.match(metrics, /http_edge_holds_total \d+/);
  const count = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  // Every response uWS wrote before this scrape was read by the edge (the scrape's own is not written yet).
  t.ok(count('http_edge_upstream_reads_total') >= count('http_edge_requests_total') - 1, `the edge counted its reads of the responses: ${count('http_edge_upstream_reads_total')} reads, ${count('http_edge_requests_total')} requests`);
});

t.test('through the edge: keep-alive connections carry POSTs with bodies', async (t) => {
  const { service, close } = await startTestService();
  t.teardown(close);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const post = (body: string): Promise<{ status: number; body: string; reused: boolean }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        { agent, host: '127.0.0.1', port: service.port, method: 'POST', path: '/clob/books', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), POLY_API_KEY: 'k_1' } },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString(), reused: req.reusedSocket }));
        },
      );
      req.setTimeout(5000, () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(body);
    });
  const before = service.edge?.stats.connectionsTotal ?? 0;
  const heldBefore = service.edge?.stats.heldRequests ?? 0;
  const small = await post('[{"token_id":"1"}]');
  const large = await post('[' + ' '.repeat(300_000) + '{"token_id":"1"}]');
  const empty = await post('[]');
  t.same([small.status, large.status, empty.status], [200, 200, 200]);
  t.same([small.body, large.body, empty.body], ['[]', '[]', '[]']);
  t.same([large.reused, empty.reused], [true, true], 'the later requests reuse the first connection');
  t.equal((service.edge?.stats.connectionsTotal ?? 0) - before, 1, 'one edge connection for three requests');
  t.equal(service.config.edgeHoldMs, 8, 'writes are held 8 ms by default');
  t.equal((service.edge?.stats.heldRequests ?? 0) - heldBefore, 3, 'each POST reached an idle service and was held, then answered (api/http/edge/writeHold.ts)');
});

t.test('through the edge: the client IP reaches the activity allowlist and cannot be spoofed', async (t) => {
  const refusing = await startTestService({ activityIpAllowlist: ['10.0.0.0/8'] });
  t.teardown(refusing.close);
  const refused = await fetchSoon(`${refusing.baseUrl}/activity/trades`);
  t.equal(refused.status, 403, '127.0.0.1 is outside 10.0.0.0/8');
  t.same(await refused.json(), { error: 'unauthorized: ip_not_allowlisted' });
  for (const name of ['x-pmx-client-ip', 'X_PMX_CLIENT_IP']) {
    const spoofed = await fetchSoon(`${refusing.baseUrl}/activity/trades`, { headers: { [name]: '10.1.2.3' } });
    t.equal(spoofed.status, 403, `${name} sent by the client does not change the IP`);
  }

  const allowing = await startTestService({ activityIpAllowlist: ['127.0.0.1/32'] });
  t.teardown(allowing.close);
  t.equal((await fetchSoon(`${allowing.baseUrl}/activity/trades`, { headers: UNDERSCORE_HEADERS })).status, 200, '127.0.0.1 is allowed');
  const spoofed = await fetchSoon(`${allowing.baseUrl}/activity/trades`, { headers: { 'x-pmx-client-ip': '10.1.2.3' } });
  t.equal(spoofed.status, 200, 'a spoofed header does not move the client out of the allowlist either');
});

t.test('--header-edge false: uWS owns the port; the header is ignored there too', async (t) => {
  const { baseUrl, service, close } = await startTestService({ headerEdge: false, activityIpAllowlist: ['10.0.0.0/8'] });
  t.teardown(close);
  t.equal(service.edge, undefined);
  t.notOk(existsSync(join(service.config.dataDir, 'http.sock')), 'no Unix socket');
  t.same(await (await fetchSoon(`${baseUrl}/health`)).json(), { status: 'ok', uwsNative: true });
  t.equal((await fetchSoon(`${baseUrl}/activity/trades`, { headers: { 'x-pmx-client-ip': '10.1.2.3' } })).status, 403, 'a direct client cannot choose its IP');
});

t.test('the Unix socket: a stale one is replaced, none is left after close, a restart works', async (t) => {
  const { uws } = loadUws(false);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-edge-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const path = join(dataDir, 'http.sock');
  // A socket file as a crash leaves it: bound, then no longer listened on (uWS does not unlink it).
  const stale = await new Promise<us_listen_socket>((resolve, reject) => uws.App().listen_unix((s: us_listen_socket | false) => (s ? resolve(s) : reject(new Error('listen_unix'))), path));
  uws.us_listen_socket_close(stale);
  t.ok(existsSync(path), 'a stale socket file is there');

  const first = await startTestService({ dataDir });
  t.equal((await fetchSoon(`${first.baseUrl}/clob/time`, { headers: UNDERSCORE_HEADERS })).status, 200, 'started over the stale socket');
  const db = first.service.config.clickhouseDatabase;
  await first.close();
  t.notOk(existsSync(path), 'close() removed the socket file');

  const second = await startTestService({ dataDir, clickhouseDatabase: db });
  t.teardown(second.close);
  t.equal((await fetchSoon(`${second.baseUrl}/clob/time`, { headers: UNDERSCORE_HEADERS })).status, 200, 'a restart on the same data directory serves');
});

t.test('socket paths: too long for sun_path falls back to the temp directory; a live socket refuses', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'svc-edge-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const longDir = join(base, 'd'.repeat(60), 'e'.repeat(60));
  mkdirSync(longDir, { recursive: true });
  const path = uwsSocketPath(longDir);
  t.ok(Buffer.byteLength(join(longDir, 'http.sock')) > MAX_UNIX_PATH_BYTES, 'the preferred path is too long');
  t.ok(path.startsWith(tmpdir()) && Buffer.byteLength(path) <= MAX_UNIX_PATH_BYTES, `fallback ${path}`);
  t.equal(uwsSocketPath(longDir + '/'), path, 'the same data directory gives the same fallback');
  t.not(uwsSocketPath(base), path);

  const svc = await startTestService({ dataDir: longDir });
  t.equal(svc.service.config.dataDir, longDir);
  t.equal((await fetchSoon(`${svc.baseUrl}/health`, { headers: UNDERSCORE_HEADERS })).status, 200, 'serves through the fallback socket');
  t.ok(existsSync(path));
  await svc.close();
  t.notOk(existsSync(path), 'the fallback socket is removed at close');

  const livePath = join(base, 'live.sock');
  const live = createServer();
  await new Promise<void>((r) => live.listen(livePath, r));
  t.teardown(() => live.close());
  await t.rejects(removeStaleSocket(livePath), /another process is listening/);
  const filePath = join(base, 'plain.sock');
  writeFileSync(filePath, '');
  await removeStaleSocket(filePath);
  t.notOk(existsSync(filePath), 'a file nobody listens on is removed');
  await removeStaleSocket(join(base, 'missing.sock'));
});
