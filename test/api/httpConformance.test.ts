// Regression tests for issue 20, "HTTP as proxies, browsers and tools expect it": one test per finding, each
// named after it, against the whole service through its header edge on the public port.

import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { CORS_ALLOWED_HEADERS } from '../../api/http/cors.js';
import { rawExchange, statuses } from '../support/rawHttp.js';
import { startTestService } from '../support/serviceFixture.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const port = svc.service.port;
const token = [...svc.service.engine.engine.markets()].find((m) => m.status === 'active')?.tokenIds[0];
if (token === undefined) throw new Error('the demo catalog needs an active market');

/** One GET through node:http, which leaves the body as sent (fetch would decode it). */
function getRaw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('HTTP/1.0 requests get 505', async (t) => {
  const plain = await rawExchange(port, 'GET /clob/ok HTTP/1.0\r\n\r\n', 1);
  t.match(plain.text, /^HTTP\/1\.1 200 OK\r\n[^]*connection: close\r\n[^]*\r\n\r\nOK$/, 'answered, without Host, and told the connection closes');
  t.notMatch(plain.text, /transfer-encoding/i, 'never chunked');
  t.ok(plain.closedByServer, 'no keep-alive unless asked: the server closes after the response');

  const keepAlive = await rawExchange(port, 'GET /clob/ok HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\nGET /clob/time HTTP/1.0\r\nConnection: keep-alive\r\n\r\n', 2);
  t.same(statuses(keepAlive.text), [200, 200], 'keep-alive asked: two requests on one connection');
  t.match(keepAlive.text, /connection: keep-alive/);
  t.notOk(keepAlive.closedByServer, 'and the connection stays open');

  const post = await rawExchange(port, 'POST /clob/books HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]', 1);
  t.match(post.text, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n\[\]$/, 'a body by Content-Length');
  const probe = await rawExchange(port, 'OPTIONS / HTTP/1.0\r\n\r\n', 1);
  t.match(probe.text, /^HTTP\/1\.1 204 No Content\r\n[^]*allow: GET, HEAD, OPTIONS\r\n/, "HAProxy's default health check (OPTIONS / HTTP/1.0) is answered");
  t.match((await rawExchange(port, 'POST /clob/books HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 1)).text, /^HTTP\/1\.1 400 /, 'chunked in HTTP/1.0 is faulty framing (RFC 9112 §6.1)');
});

t.test('Unknown methods get no answer at all', async (t) => {
  const known = await rawExchange(port, 'QUERY /clob/book HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}GET /clob/ok HTTP/1.1\r\nHost: h\r\n\r\n', 2);
  t.same(statuses(known.text), [405, 200], 'QUERY on a known path: 405, then the next request on the same connection');
  t.match(known.text, /^HTTP\/1\.1 405 Method Not Allowed\r\n[^]*allow: GET, HEAD, OPTIONS\r\n/);
  const unknown = await rawExchange(port, 'FOO /nowhere HTTP/1.1\r\nHost: h\r\n\r\nGET /clob/ok HTTP/1.1\r\nHost: h\r\n\r\n', 2);
  t.same(statuses(unknown.text), [501, 200], 'an unknown method on an unknown path: 501, and the connection stays usable');
  t.match(unknown.text, /\{"error":"method FOO is not implemented"\}/);
  for (const method of ['PUT', 'PATCH', 'TRACE', 'CONNECT']) {
    const got = await rawExchange(port, `${method} /clob/order HTTP/1.1\r\nHost: h\r\n\r\n`, 1);
    t.match(got.text, /^HTTP\/1\.1 405 [^]*allow: DELETE, OPTIONS, POST\r\n/, `${method} /clob/order: 405 with Allow`);
  }
});

t.test('No CORS', async (t) => {
  const origin = 'https://trader.example';
  const preflight = await fetch(`${svc.baseUrl}/clob/order`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,poly_address,poly_api_key,poly_passphrase,poly_signature,poly_timestamp' },
  });
  t.equal(preflight.status, 204, 'the preflight is answered');
  t.equal(preflight.headers.get('access-control-allow-origin'), '*', 'any origin by default');
  t.equal(preflight.headers.get('access-control-allow-methods'), 'DELETE, OPTIONS, POST');
  t.same(preflight.headers.get('access-control-allow-headers')?.split(', '), [...CORS_ALLOWED_HEADERS], "every header the SDKs send, '_' and '-' spellings");
  const read = await fetch(`${svc.baseUrl}/clob/book?token_id=${token}`, { headers: { origin } });
  t.equal(read.status, 200);
  t.equal(read.headers.get('access-control-allow-origin'), '*', 'an actual request carries the allowed origin');
  const refused = await fetch(`${svc.baseUrl}/clob/data/orders`, { headers: { origin } });
  t.equal(refused.status, 401);
  t.equal(refused.headers.get('access-control-allow-origin'), '*', 'errors too, so the front end can read them');

  const listed = await startTestService({ corsOrigins: ['https://app.example'] });
  t.teardown(() => listed.close());
  const yes = await fetch(`${listed.baseUrl}/clob/ok`, { headers: { origin: 'https://app.example' } });
  t.equal(yes.headers.get('access-control-allow-origin'), 'https://app.example');
  t.equal(yes.headers.get('vary'), 'origin');
  const no = await fetch(`${listed.baseUrl}/clob/ok`, { headers: { origin: 'https://other.example' } });
  t.equal(no.headers.get('access-control-allow-origin'), null, 'an origin not listed gets no CORS headers');
});

t.test('HEAD on GET routes is a 404', async (t) => {
  const get = await getRaw(`/clob/book?token_id=${token}`);
  const both = await rawExchange(port, `HEAD /clob/book?token_id=${token} HTTP/1.1\r\nHost: h\r\n\r\nGET /clob/ok HTTP/1.1\r\nHost: h\r\n\r\n`, 2);
  t.same(statuses(both.text), [200, 200], 'HEAD answered, and the next request framed after it');
  const [head = ''] = both.text.split('HTTP/1.1 200 OK').slice(1);
  t.match(head, new RegExp(`content-length: ${get.body.length}\\r\\n`, 'i'), "the GET body's length");
  t.match(head, /\r\n\r\n$/, 'no body');
  for (const path of ['/catalog/markets?limit=1', '/health', '/clob/time', '/openapi.json']) {
    const res = await fetch(`${svc.baseUrl}${path}`, { method: 'HEAD' });
    t.equal(res.status, 200, `HEAD ${path}`);
    t.equal(await res.text(), '');
  }
});

t.test('No compression', async (t) => {
  const plain = await getRaw('/catalog/markets?limit=50');
  t.ok(plain.body.length > 50_000, `the page is large (${plain.body.length} bytes)`);
  t.equal(plain.headers['content-encoding'], undefined, 'sent as it is to a client that asks for nothing');
  const gzip = await getRaw('/catalog/markets?limit=50', { 'accept-encoding': 'gzip' });
  t.equal(gzip.headers['content-encoding'], 'gzip', 'gzip for the SDKs, which ask for it');
  t.equal(gzip.headers.vary, 'accept-encoding');
  t.ok(gzip.body.length * 3 < plain.body.length, `${gzip.body.length} bytes`);
  t.same(gunzipSync(gzip.body), plain.body);
  const br = await getRaw('/catalog/markets?limit=50', { 'accept-encoding': 'gzip, deflate, br' });
  t.equal(br.headers['content-encoding'], 'br', 'brotli when the client takes it');
  t.same(brotliDecompressSync(br.body), plain.body);
  const book = await getRaw(`/clob/book?token_id=${token}`, { 'accept-encoding': 'gzip, br' });
  t.equal(book.headers['content-encoding'], undefined, 'a small /book answer is not compressed');
});

t.test('OpenAPI lists fewer statuses than the service sends', async (t) => {
  const doc = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
  const long = `/activity/positions?user=0x${'ab'.repeat(20)}&market=${Array.from({ length: 1200 }, () => `0x${'cd'.repeat(32)}`).join(',')}`;
  const res = await fetch(`${svc.baseUrl}${long}`);
  t.equal(res.status, 431, 'a long market list is 431 (from the edge)');
  t.ok(doc.paths['/activity/positions']?.get?.responses['431'], '…and 431 is in its OpenAPI entry');
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const codes = Object.keys(op.responses);
      for (const status of ['200', '400', '429', '431', '500']) t.ok(codes.includes(status), `${method.toUpperCase()} ${path} documents ${status}`);
      if (method !== 'get') t.ok(codes.includes('413'), `${method.toUpperCase()} ${path} documents 413`);
      if (path.startsWith('/activity/')) t.ok(codes.includes('403'), `${method.toUpperCase()} ${path} documents 403`);
    }
  }
});
