// The HTTP core on the real uWebSockets.js, with small routes of its own: mounting under prefixes and at
// the root, root rules for shared paths, validation, error bodies per surface, the body cap, rate limits,
// the activity allowlist, aborted requests and draining; methods (HEAD, OPTIONS, 405 with Allow), CORS and
// compression.

import { request } from 'node:http';
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { ApiError } from '../../api/http/apiErrors.js';
import { ok, type RouteDef } from '../../api/http/apiTypes.js';
import { corsPolicy, type CorsPolicy } from '../../api/http/cors.js';
import { createHttpServer, type HttpServer } from '../../api/http/httpServer.js';
import { IpAllowlist } from '../../api/http/ipAllowlist.js';
import { RateLimiter } from '../../api/http/rateLimiter.js';
import { ROOT_RULES } from '../../api/http/rootRules.js';
import { rawExchange } from '../support/rawHttp.js';
import { loadUws } from '../../api/http/uwsLoader.js';

const { uws, native } = loadUws(false);

let slowRelease: (() => void) | undefined;
let slowCalls = 0;

const routes: RouteDef[] = [
  {
    method: 'GET', path: '/markets', surface: 'catalog', summary: 'catalog list',
    query: { type: 'object', properties: { limit: { type: 'integer', minimum: 0, maximum: 10 } } },
    response: { type: 'array', items: { type: 'string' } },
    handler: (req) => ok(['catalog', String(req.query.limit ?? 'none')]),
  },
  {
    method: 'GET', path: '/markets', surface: 'clob', summary: 'clob list', response: { type: 'object', properties: { data: { type: 'array', items: { type: 'string' } } }, required: ['data'] },
    handler: () => ok({ data: ['clob'], dropped: 'by the serialiser' }),
  },
  { method: 'GET', path: '/markets/{id}', surface: 'catalog', summary: 'catalog one', response: { type: 'string' }, handler: (req) => ok(`catalog:${req.params.id ?? ''}`) },
  { method: 'GET', path: '/markets/{id}', surface: 'clob', summary: 'clob one', response: { type: 'string' }, handler: (req) => ok(`clob:${req.params.id ?? ''}`) },
  { method: 'GET', path: '/missing', surface: 'catalog', summary: 'typed 404', response: { type: 'string' }, handler: () => { throw new ApiError('id_not_found'); } },
  {
    method: 'GET', path: '/trades', surface: 'activity', summary: 'strict', strictQuery: true,
    query: { type: 'object', properties: { user: { type: 'string' }, market: { type: 'array', items: { type: 'string' }, maxItems: 3 } }, required: ['user'] },
    response: { type: 'object', properties: { user: { type: 'string' }, market: { type: 'array', items: { type: 'string' } } }, required: ['user'] },
    handler: (req) => ok(req.query),
  },
  { method: 'GET', path: '/boom', surface: 'activity', summary: 'fails', response: { type: 'string' }, handler: async () => { throw new Error('database exploded'); } },
  {
    method: 'GET', path: '/badshape', surface: 'clob', summary: 'a body that breaks its schema',
    response: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, handler: () => ok({}),
  },
  { method: 'GET', path: '/clobboom', surface: 'clob', summary: 'fails', response: { type: 'string' }, handler: () => { throw new Error('bug'); } },
  {
    method: 'POST', path: '/books', surface: 'clob', summary: 'body', limits: ['tight'],
    body: { type: 'array', items: { type: 'object', properties: { token_id: { type: 'string' } }, required: ['token_id'] }, maxItems: 3 },
    response: { type: 'array', items: { type: 'string' } },
    handler: (req) => ok((req.body as { token_id: string }[]).map((b) => b.token_id)),
  },
  {
    method: 'POST', path: '/echo', surface: 'catalog', summary: 'catalog body', body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    response: { type: 'object', properties: { n: { type: 'integer' }, raw: { type: 'string' } }, required: ['n', 'raw'] },
    handler: (req) => ok({ n: (req.body as { n: number }).n, raw: req.rawBody }),
  },
  { method: 'DELETE', path: '/cancel-all', surface: 'clob', summary: 'no body', response: { type: 'string' }, handler: (req) => ok(`deleted:${req.rawBody.length}`) },
  {
    method: 'GET', path: '/slow', surface: 'clob', summary: 'slow', response: { type: 'string' },
    handler: () => new Promise((resolve) => { slowCalls += 1; slowRelease = () => resolve(ok('slow done')); }),
  },
];

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => unknown;
}

async function http(base: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Got> {
  const res = await fetch(base + path, { method, body, headers });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json: () => JSON.parse(text) as unknown };
}

/** One request through node:http, which leaves the body as sent (fetch would decode it). */
function rawRequest(port: number, method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function start(t: Test, opts: { limiter?: RateLimiter; allow?: string[]; cors?: CorsPolicy; compressMinBytes?: number } = {}): Promise<{ base: string; server: HttpServer }> {
  const server = createHttpServer({
    uws,
    routes,
    rootRules: ROOT_RULES,
    limiter: opts.limiter,
    activityAllowlist: new IpAllowlist(opts.allow ?? ['0.0.0.0/0', '::/0']),
    clock: Date.now,
    maxBodyBytes: 1024 * 1024,
    cors: opts.cors,
    compressMinBytes: opts.compressMinBytes,
  });
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(() => server.stopListening());
  return { base: `http://127.0.0.1:${port}`, server };
}

t.test('the native uWS binary loaded', async (t) => {
  t.equal(native, true);
});

t.test('surfaces under their prefixes and at the root', async (t) => {
  const { base } = await start(t);
  t.same((await http(base, 'GET', '/catalog/markets?limit=3')).json(), ['catalog', '3']);
  t.same((await http(base, 'GET', '/clob/markets')).json(), { data: ['clob'] }, 'fast-json-stringify sends only what the schema names');
  t.same((await http(base, 'GET', '/markets')).json(), ['catalog', 'none'], 'root /markets without next_cursor is the catalog');
  t.same((await http(base, 'GET', '/markets?next_cursor=MA==')).json(), { data: ['clob'] }, 'with next_cursor it is the order book');
  const cid = '0x' + 'ab'.repeat(32);
  t.equal((await http(base, 'GET', `/markets/${cid}`)).text, `clob:${cid}`, 'a condition id goes to the order book');
  t.equal((await http(base, 'GET', '/markets/123')).text, 'catalog:123', 'a numeric id goes to the catalog');
  t.equal((await http(base, 'GET', `/catalog/markets/${cid}`)).text, `catalog:${cid}`);
  t.equal((await http(base, 'GET', '/activity/trades?user=0x1')).status, 200);
  t.equal((await http(base, 'GET', '/trades?user=0x1')).status, 200, 'a path only one surface has is at the root');
  const text = await http(base, 'GET', '/markets/123');
  t.match(text.headers['content-type'], /text\/plain/);
});

t.test('unknown paths are a JSON 404, whatever the method', async (t) => {
  const { base } = await start(t);
  for (const [method, path] of [['GET', '/nope'], ['POST', '/nope'], ['GET', '/clob/trades'], ['PUT', '/nope/deeper']] as const) {
    const got = await http(base, method, path);
    t.equal(got.status, 404, `${method} ${path}`);
    t.same(got.json(), { error: 'not found' });
  }
});

t.test('a known path with another method is 405 with Allow; OPTIONS is 204 with Allow', async (t) => {
  const { base } = await start(t);
  for (const [method, path, allow] of [
    ['POST', '/markets', 'GET, HEAD, OPTIONS'],
    ['PUT', '/catalog/markets', 'GET, HEAD, OPTIONS'],
    ['PATCH', '/books', 'OPTIONS, POST'],
    ['DELETE', '/clob/books', 'OPTIONS, POST'],
    ['GET', '/clob/cancel-all', 'DELETE, OPTIONS'],
  ] as const) {
    const got = await http(base, method, path);
    t.equal(got.status, 405, `${method} ${path}`);
    t.equal(got.headers.allow, allow, `${method} ${path}: Allow`);
    t.same(got.json(), { error: 'method not allowed' });
  }
  const options = await http(base, 'OPTIONS', '/clob/markets');
  t.equal(options.status, 204);
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS');
  t.equal(options.text, '');
  t.equal(options.headers['access-control-allow-origin'], undefined, 'no CORS without a policy');
  t.equal((await http(base, 'OPTIONS', '/nope')).status, 404);
});

t.test('HEAD answers every GET route with its status and headers and no body', async (t) => {
  const { base } = await start(t);
  const port = Number(new URL(base).port);
  const { text: reply } = await rawExchange(port, 'HEAD /catalog/markets?limit=3 HTTP/1.1\r\nHost: h\r\n\r\nHEAD /nope HTTP/1.1\r\nHost: h\r\n\r\nHEAD /catalog/markets?limit=99 HTTP/1.1\r\nHost: h\r\n\r\nGET /catalog/markets?limit=3 HTTP/1.1\r\nHost: h\r\n\r\n', 4);
  const heads = reply.split('HTTP/1.1 ').slice(1);
  t.equal(heads.length, 4, 'four responses, framed as such');
  t.match(heads[0], /^200 OK\r\n[^]*content-length: 15\r\n[^]*\r\n\r\n$/, 'HEAD 200: the GET body length, no body');
  t.match(heads[1], /^404 Not Found\r\n[^]*content-length: 21\r\n[^]*\r\n\r\n$/, 'HEAD 404: no body');
  t.match(heads[2], /^400 Bad Request\r\n[^]*\r\n\r\n$/, 'HEAD 400: no body');
  t.match(heads[3], /^200 OK\r\n[^]*\r\n\r\n\["catalog","3"\]$/, 'the GET after them is whole');
});

t.test('CORS: allowed origins get the headers; a preflight is answered on every known path', async (t) => {
  const any = await start(t, { cors: corsPolicy(['*']) });
  const simple = await http(any.base, 'GET', '/catalog/markets', undefined, { origin: 'https://app.example' });
  t.equal(simple.headers['access-control-allow-origin'], '*');
  t.equal(simple.headers['access-control-expose-headers'], 'retry-after');
  t.equal((await http(any.base, 'GET', '/catalog/markets')).headers['access-control-allow-origin'], undefined, 'no Origin, no CORS headers');
  const preflight = await http(any.base, 'OPTIONS', '/clob/books', undefined, {
    origin: 'https://app.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type,poly_address,poly_api_key,poly_passphrase,poly_signature,poly_timestamp',
  });
  t.equal(preflight.status, 204);
  t.equal(preflight.headers['access-control-allow-origin'], '*');
  t.equal(preflight.headers['access-control-allow-methods'], 'OPTIONS, POST');
  const allowed = String(preflight.headers['access-control-allow-headers']).split(', ');
  for (const name of ['content-type', 'poly_address', 'poly_api_key', 'poly_passphrase', 'poly_signature', 'poly_timestamp', 'poly_nonce', 'svc_api_key', 'svc-api-key']) t.ok(allowed.includes(name), `allows ${name}`);
  t.equal(preflight.headers['access-control-max-age'], '600');

  const listed = await start(t, { cors: corsPolicy(['https://app.example']) });
  const yes = await http(listed.base, 'GET', '/catalog/markets', undefined, { origin: 'https://app.example' });
  t.equal(yes.headers['access-control-allow-origin'], 'https://app.example');
  t.equal(yes.headers.vary, 'origin');
  const no = await http(listed.base, 'GET', '/catalog/markets', undefined, { origin: 'https://evil.example' });
  t.equal(no.status, 200, 'the server still answers; the browser withholds it');
  t.equal(no.headers['access-control-allow-origin'], undefined);
  const noPreflight = await http(listed.base, 'OPTIONS', '/catalog/markets', undefined, { origin: 'https://evil.example', 'access-control-request-method': 'GET' });
  t.equal(noPreflight.status, 204);
  t.equal(noPreflight.headers['access-control-allow-origin'], undefined, 'a refused origin gets no CORS headers');
});

t.test('compression: br or gzip by Accept-Encoding above the threshold; HEAD and small bodies as they are', async (t) => {
  const { base } = await start(t, { compressMinBytes: 16 });
  const port = Number(new URL(base).port);
  const body = '{"n":1,"pad":"' + 'x'.repeat(200) + '"}';
  for (const [accept, coding] of [['gzip', 'gzip'], ['gzip, deflate, br', 'br'], ['br;q=0, gzip', 'gzip'], ['identity', undefined], ['*', 'br']] as const) {
    const got = await rawRequest(port, 'POST', '/echo', body, { 'accept-encoding': accept });
    t.equal(got.headers['content-encoding'], coding, `Accept-Encoding: ${accept}`);
    t.equal(got.headers.vary, 'accept-encoding');
    const decoded = coding === 'br' ? brotliDecompressSync(got.body) : coding === 'gzip' ? gunzipSync(got.body) : got.body;
    t.same(JSON.parse(decoded.toString()), { n: 1, raw: body });
  }
  const small = await rawRequest(port, 'GET', '/markets/1', undefined, { 'accept-encoding': 'gzip' });
  t.equal(small.headers['content-encoding'], undefined, 'a body under the threshold is sent as it is');
  const off = await start(t, { compressMinBytes: 0 });
  const none = await rawRequest(Number(new URL(off.base).port), 'POST', '/echo', body, { 'accept-encoding': 'gzip' });
  t.equal(none.headers['content-encoding'], undefined, '0 turns compression off');
});

t.test('errors take the surface form', async (t) => {
  const { base } = await start(t);
  const typed = await http(base, 'GET', '/catalog/missing');
  t.equal(typed.status, 404);
  t.same(typed.json(), { type: 'not found error', error: 'id not found' });
  const badLimit = await http(base, 'GET', '/catalog/markets?limit=11');
  t.equal(badLimit.status, 400);
  t.same(badLimit.json(), { type: 'bad request', error: 'limit must be <= 10' });
  t.same((await http(base, 'GET', '/catalog/markets?limit=x')).json(), { type: 'bad request', error: 'limit must be an integer' });
  const unknown = await http(base, 'GET', '/activity/trades?user=0x1&bogus=1');
  t.equal(unknown.status, 400);
  t.same(unknown.json(), { error: 'unknown_field: bogus' });
  t.same((await http(base, 'GET', '/activity/trades')).json(), { error: 'user is required' });
  t.same((await http(base, 'GET', '/activity/trades?user=u&market=a,b,c,d')).json(), { error: 'market must have at most 3 items' });
  t.same((await http(base, 'GET', '/activity/trades?user=u&market=a,b&market=c')).json(), { user: 'u', market: ['a', 'b', 'c'] }, 'lists are comma-separated and repeatable');
  t.same((await http(base, 'GET', '/activity/trades?user=&market=a,,b')).json(), { user: '', market: ['a', '', 'b'] }, 'a strict query takes values as sent: an empty value or item is one');
  t.same((await http(base, 'GET', '/activity/trades?user=u&market=')).json(), { user: 'u', market: [''] }, 'and `market=` is the list of one empty item (OpenAPI form style)');
  const dbFailure = await http(base, 'GET', '/activity/boom');
  t.equal(dbFailure.status, 500);
  t.same(dbFailure.json(), { error: 'internal_error: unexpected database failure' });
  const bug = await http(base, 'GET', '/clob/clobboom');
  t.equal(bug.status, 500);
  t.same(bug.json(), { error: 'internal error' });
  const shape = await http(base, 'GET', '/clob/badshape');
  t.equal(shape.status, 500, 'a body its schema cannot serialise is a 500, not a hang');
  t.same(shape.json(), { error: 'internal error' });
});

t.test('bodies: JSON, validation, the 1 MiB cap, bodiless DELETE', async (t) => {
  const { base } = await start(t);
  t.same((await http(base, 'POST', '/books', '[{"token_id":"1"},{"token_id":"2"}]')).json(), ['1', '2']);
  for (const bad of ['', 'not json', '{"token_id":"1"}', '[{"x":1}]', '[{"token_id":"1"},{"token_id":"1"},{"token_id":"1"},{"token_id":"1"}]']) {
    const got = await http(base, 'POST', '/books', bad);
    t.equal(got.status, 400, JSON.stringify(bad));
    t.same(got.json(), { error: 'Invalid payload' });
  }
  t.same((await http(base, 'POST', '/catalog/echo', '{"n":"x"}')).json(), { type: 'bad request', error: 'n must be an integer' });
  t.same((await http(base, 'POST', '/catalog/echo', '{"n": 5}')).json(), { n: 5, raw: '{"n": 5}' }, 'the raw body is kept byte for byte');
  const big = '[' + '"x",'.repeat(300_000) + '"x"]';
  const tooBig = await http(base, 'POST', '/books', big);
  t.equal(tooBig.status, 413);
  t.same(tooBig.json(), { error: 'request body exceeds 1048576 bytes' });
  t.same((await http(base, 'DELETE', '/cancel-all')).text, 'deleted:0');
});

t.test('a body arriving in one piece or in several, split inside a multi-byte character, reads the same', async (t) => {
  const { base } = await start(t);
  const url = new URL(base);
  const body = JSON.stringify({ n: 7, note: 'é — 東京 🎲 '.repeat(40) });
  const bytes = Buffer.from(body, 'utf8');
  const whole = await http(base, 'POST', '/echo', body, { 'content-type': 'application/json' });
  t.same(whole.json(), { n: 7, raw: body }, 'one piece');
  // Raw socket, the body in three writes with pauses (so uWS hands it over in separate chunks), cut in the
  // middle of a 3-byte character and of the 4-byte one.
  const cut1 = bytes.indexOf(Buffer.from('東')) + 1;
  const cut2 = bytes.indexOf(Buffer.from('🎲')) + 2;
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('utf8');
      if (got.includes('\r\n\r\n') && got.endsWith('}')) {
        socket.end();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.write(`POST /catalog/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${bytes.length}\r\n\r\n`);
    socket.write(bytes.subarray(0, cut1));
    setTimeout(() => socket.write(bytes.subarray(cut1, cut2)), 30);
    setTimeout(() => socket.write(bytes.subarray(cut2)), 60);
  });
  t.match(answer, /^HTTP\/1\.1 200/);
  t.same(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { n: 7, raw: body }, 'three pieces');
});

t.test('a chunked body over the cap is refused while it streams', async (t) => {
  const { base } = await start(t);
  const url = new URL(base);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/books', method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 20; i++) req.write(chunk);
    req.end();
  }).catch(() => 413);
  t.equal(status, 413);
  t.equal((await http(base, 'GET', '/clob/markets')).status, 200, 'the server still serves');
});

t.test('rate limits answer 429 with Retry-After, per caller key', async (t) => {
  const limiter = new RateLimiter({ clob: { limit: 1000, windowMs: 10_000 }, tight: { limit: 3, windowMs: 10_000 } });
  const { base } = await start(t, { limiter });
  for (let i = 0; i < 3; i++) t.equal((await http(base, 'POST', '/books', '[]')).status, 200);
  const limited = await http(base, 'POST', '/books', '[]');
  t.equal(limited.status, 429);
  t.same(limited.json(), { error: 'Too Many Requests' });
  t.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After in seconds');
  t.equal((await http(base, 'POST', '/books', '[]', { 'POLY-API-KEY': 'another-key' })).status, 200, 'another API key has its own window');
  t.equal((await http(base, 'GET', '/clob/markets')).status, 200, 'other routes are not affected');
});

t.test('the activity allowlist refuses other IPs with 403', async (t) => {
  const { base } = await start(t, { allow: ['10.0.0.0/8'] });
  const got = await http(base, 'GET', '/activity/trades?user=0x1');
  t.equal(got.status, 403);
  t.same(got.json(), { error: 'unauthorized: ip_not_allowlisted' });
  t.equal((await http(base, 'GET', '/clob/markets')).status, 200, 'only the activity surface is fenced');
});

t.test('a client that goes away mid-request does not break the server; drained() waits for handlers', async (t) => {
  const { base, server } = await start(t);
  const url = new URL(base);
  const before = slowCalls;
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write('GET /clob/slow HTTP/1.1\r\nHost: x\r\n\r\n');
  while (slowCalls === before) await new Promise((r) => setTimeout(r, 5));
  t.equal(server.inFlight, 1);
  socket.destroy();
  await new Promise((r) => setTimeout(r, 50));
  let drained = false;
  const waiting = server.drained().then(() => (drained = true));
  await new Promise((r) => setTimeout(r, 20));
  t.equal(drained, false, 'the handler is still running');
  slowRelease?.();
  await waiting;
  t.equal(server.inFlight, 0);
  t.equal((await http(base, 'GET', '/clob/markets')).status, 200);
});

t.test('rate limiter: sliding window estimate and pruning', async (t) => {
  const limiter = new RateLimiter({ w: { limit: 10, windowMs: 1000 } });
  for (let i = 0; i < 10; i++) t.ok(limiter.admit(['w'], 'k', 100).ok);
  const refused = limiter.admit(['w'], 'k', 200);
  t.equal(refused.ok, false);
  t.equal(refused.window, 'w');
  // Half-way into the next window, half of the previous window's 10 still count.
  t.equal(limiter.admit(['w'], 'k', 1500, 5).ok, true);
  t.equal(limiter.admit(['w'], 'k', 1500, 1).ok, false);
  t.equal(limiter.admit(['w', 'unknown-window'], 'other', 1500).ok, true, 'unknown windows are ignored');
  limiter.prune(5000);
  t.equal(limiter.size, 0);
});

t.test('the slow JS fallback is refused unless allowed', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const script = "import('./api/http/uwsLoader.ts').then(m => { try { m.loadUws(process.argv[1] === 'allow'); console.log('started'); } catch (e) { console.log(e.name); } })";
  const run = (arg: string): string =>
    spawnSync(process.execPath, ['--import', 'tsx', '-e', script, arg], { env: { ...process.env, UWS_USE_FALLBACK: '1' }, encoding: 'utf8' }).stdout.trim().split('\n').pop() ?? '';
  t.equal(run('refuse'), 'SlowUwsError');
  t.equal(run('allow'), 'started');
});
