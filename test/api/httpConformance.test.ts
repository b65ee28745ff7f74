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

// Regression tests for issue 37, "The OpenAPI document states every rule the service enforces": one test per
// finding of schemathesis --checks all, each named after it. The fuzzer (openapiFuzz.test.ts) keeps the whole
// document and the service equal; these pin each rule that was missing from the document.

type Schema = Record<string, unknown>;
interface Parameter { name: string; in: string; required?: boolean; allowEmptyValue?: boolean; style?: string; explode?: boolean; schema: Schema }
interface Operation { parameters: Parameter[]; requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }; responses: Record<string, unknown> }
const openApi = async (): Promise<{ paths: Record<string, Record<string, Operation>> }> => (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
const doc = await openApi();
const op = (path: string, method = 'get'): Operation => {
  const found = doc.paths[path]?.[method];
  if (found === undefined) throw new Error(`${method} ${path} is not in the document`);
  return found;
};
const param = (path: string, name: string, method = 'get'): Parameter => {
  const found = op(path, method).parameters.find((p) => p.name === name || Object.keys((p.schema.properties ?? {}) as Schema).includes(name));
  if (found === undefined) throw new Error(`${method} ${path} documents no ${name}`);
  return found;
};
const matches = (schema: Schema, value: string): boolean => new RegExp(String(schema.pattern)).test(value);
const getJson = async (path: string): Promise<{ status: number; body: { error?: string } }> => {
  const res = await fetch(`${svc.baseUrl}${path}`);
  return { status: res.status, body: (await res.json()) as { error?: string } };
};
const market = [...svc.service.engine.engine.markets()].find((m) => m.status === 'active');
if (market === undefined) throw new Error('the demo catalog needs an active market');

t.test('Token ids that are not decimal digits are documented as valid', async (t) => {
  for (const path of ['/clob/book', '/clob/price', '/clob/midpoint', '/clob/spread', '/clob/tick-size', '/clob/neg-risk', '/clob/fee-rate', '/clob/last-trade-price']) {
    const tokenId = param(path, 'token_id');
    t.ok(tokenId.required, `${path}: token_id is required`);
    t.ok(matches(tokenId.schema, '123') && !matches(tokenId.schema, 'abc') && !matches(tokenId.schema, '1.5'), `${path}: token_id is decimal digits`);
  }
  t.same((param('/clob/prices-history', 'market').schema as { pattern?: string }).pattern, '^[0-9]{1,78}$', '/prices-history names the token `market`');
  t.same(await getJson('/clob/book?token_id=abc'), { status: 400, body: { error: 'Invalid token id' } }, 'what the pattern refuses is refused with the public message');
  t.equal((await getJson('/clob/book?token_id=12345')).status, 404, 'what it admits is looked up');
  const books = op('/clob/books', 'post').requestBody?.content['application/json']?.schema as { items: { properties: { token_id: Schema } }; maxItems: number };
  t.ok(matches(books.items.properties.token_id, '9') && !matches(books.items.properties.token_id, 'x'), 'POST /books: token_id items too');
  t.equal(books.maxItems, 500);
});

t.test('Cursors this service did not issue are documented as valid', async (t) => {
  for (const path of ['/clob/markets', '/clob/sampling-markets', '/clob/simplified-markets', '/clob/sampling-simplified-markets']) {
    const schema = (param(path, 'next_cursor').schema.anyOf as Schema[] | undefined)?.[0] ?? param(path, 'next_cursor').schema;
    t.ok(matches(schema, 'MA==') && matches(schema, 'LTE=') && matches(schema, Buffer.from('500').toString('base64')), `${path}: the cursors it issues`);
    t.notOk(matches(schema, 'bm9wZQ==') || matches(schema, 'MB=='), `${path}: no other`);
    t.ok(param(path, 'next_cursor').allowEmptyValue, `${path}: an empty cursor is the first page`);
  }
  t.same(await getJson('/clob/sampling-markets?next_cursor=bm9wZQ=='), { status: 400, body: { error: 'next_cursor: is not a cursor this service issued' } });
});

t.test('Booleans spelled other than true/false are refused though documented as strings', async (t) => {
  for (const path of ['/catalog/markets', '/catalog/events']) {
    for (const name of ['active', 'closed', 'archived', 'ascending']) t.equal(param(path, name).schema.type, 'boolean', `${path} ${name}`);
    for (const value of ['1', 'TRUE', 'yes']) t.same(await getJson(`${path}?active=${value}`), { status: 400, body: { type: 'bad request', error: 'active must be true or false' } }, `${path}?active=${value}`);
    t.equal((await getJson(`${path}?active=true&limit=1`)).status, 200);
  }
});

t.test('filterType without filterAmount on /trades is refused though documented as independent', async (t) => {
  const filter = param('/activity/trades', 'filterType');
  t.match(filter, { in: 'query', style: 'form', explode: true, schema: { type: 'object', dependentRequired: { filterType: ['filterAmount'], filterAmount: ['filterType'] } } }, 'one form-exploded parameter states the rule');
  t.same(await getJson('/activity/trades?filterType=CASH'), { status: 400, body: { error: 'filterAmount is required' } });
  t.equal((await getJson('/activity/trades?filterType=CASH&filterAmount=1')).status, 200);
});

t.test('q over 200 characters is refused though documented without a bound', async (t) => {
  t.equal(param('/catalog/public-search', 'q').schema.maxLength, 200);
  t.same(await getJson(`/catalog/public-search?q=${'x'.repeat(201)}`), { status: 400, body: { type: 'bad request', error: 'q must be at most 200 characters' } });
  t.equal((await getJson(`/catalog/public-search?q=${'😀'.repeat(200)}`)).status, 200, '200 characters outside the BMP are 200 characters (JSON Schema counts code points)');
});

t.test('limit of 0 on /series and /tags: the bound is documented', async (t) => {
  t.match(param('/catalog/series', 'limit').schema, { type: 'integer', minimum: 1, maximum: 100 });
  t.match(param('/catalog/tags', 'limit').schema, { type: 'integer', minimum: 0 });
  t.equal((await getJson('/catalog/series?limit=0')).status, 400);
  t.equal((await getJson('/catalog/tags?limit=0')).status, 200);
});

t.test('Condition ids and builder codes of the wrong form are documented as valid', async (t) => {
  for (const [path, name] of [['/clob/markets/{id}', 'id'], ['/clob/clob-markets/{condition_id}', 'condition_id'], ['/clob/markets/live-activity/{condition_id}', 'condition_id']] as const) {
    const schema = param(path, name).schema;
    t.ok(matches(schema, market.conditionId) && !matches(schema, '0x12'), `${path}: a condition id`);
  }
  const code = param('/clob/fees/builder-fees/{builder_code}', 'builder_code').schema;
  t.ok(matches(code, `0x${'ab'.repeat(32)}`) && !matches(code, '0'), 'builder codes are bytes32 hex');
  t.same(await getJson('/clob/clob-markets/0x12'), { status: 400, body: { error: 'Invalid market' } });
  t.same(await getJson('/clob/fees/builder-fees/0'), { status: 400, body: { error: 'builder_code: must be bytes32 hex (0x + 64 hex digits)' } });
});

t.test('POST /batch-prices-history payloads the document allows are refused', async (t) => {
  const body = op('/clob/batch-prices-history', 'post').requestBody?.content['application/json']?.schema as { properties: Record<string, Schema>; required: string[] };
  t.match(body.properties.markets, { type: 'array', minItems: 1, maxItems: 20, items: { pattern: '^[0-9]{1,78}$' } });

  const post = async (payload: unknown): Promise<number> => (await fetch(`${svc.baseUrl}/clob/batch-prices-history`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })).status;
  t.equal(await post({ markets: [] }), 400, 'no token');
  t.equal(await post({ markets: Array.from({ length: 21 }, (_, i) => String(i)) }), 400, 'more than 20, repeats counted');
  t.equal(await post({ markets: ['1'], interval: '1d', start_ts: 5 }), 200, 'an interval with a start: the later of the two starts the range');
  t.equal(await post({ markets: ['1'], startTs: 4_294_967_294 }), 200, 'a start after the end: an empty history, not an error');
  t.equal(await post({ markets: ['1'], interval: 'MAX', fidelity: 1 }), 200, 'an interval in any case; a fidelity raised to fit');
});

/**
 * The most bytes a parameter's value can take on the wire, percent-encoded: 1 per character of a pattern of
 * letters and digits only (never encoded), 3 of another ASCII-only pattern or enum, else 12 (a 4-byte UTF-8
 * character, each byte %XX).
 */
function worstBytes(schema: Schema): number {
  if (Array.isArray(schema.anyOf)) return Math.max(...(schema.anyOf as Schema[]).map(worstBytes));
  if (Array.isArray(schema.enum)) return 3 * Math.max(...(schema.enum as unknown[]).map((v) => String(v).length));
  switch (schema.type) {
    case 'boolean':
      return 5;
    case 'integer':
    case 'number':
      return typeof schema.maximum === 'number' ? String(schema.maximum).length + 1 : 24;
    case 'array': {
      if (typeof schema.maxItems !== 'number') return Number.POSITIVE_INFINITY;
      return schema.maxItems * (worstBytes(schema.items as Schema) + 3);
    }
    case 'object':
      return Object.entries((schema.properties ?? {}) as Record<string, Schema>).reduce((sum, [name, s]) => sum + name.length + 2 + worstBytes(s), 0);
    default: {
      if (typeof schema.maxLength !== 'number') return Number.POSITIVE_INFINITY;
      const pattern = typeof schema.pattern === 'string' ? schema.pattern : '';
      const anchored = pattern.startsWith('^') && pattern.endsWith('$');
      const plain = anchored && /^[\^$()?:|[\]{}0-9a-zA-Z,-]*$/.test(pattern);
      const ascii = anchored && !pattern.includes('[^') && !pattern.includes('.') && !pattern.includes('\\u');
      return schema.maxLength * (plain ? 1 : ascii ? 3 : 12);
    }
  }
}

t.test('Query strings the document allows exceed the header limit (431)', async (t) => {
  // 64 KiB of request head: the query takes at most 48 KiB, leaving room for the headers of any client and for
  // the one item or character too many that a request the document refuses has (answered 400, not 431).
  const budget = 48 * 1024;
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const query = operation.parameters.filter((p) => p.in === 'query' || p.in === 'path');
      const worst = query.reduce((sum, p) => sum + p.name.length + 2 + worstBytes(p.schema), path.length);
      t.ok(worst <= budget, `${method.toUpperCase()} ${path}: the longest valid query is at most ${worst} bytes`);
    }
  }
  const markets = Array.from({ length: 300 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`).join(',');
  const longest = await fetch(`${svc.baseUrl}/activity/positions?user=0x${'ab'.repeat(20)}&market=${markets}&title=${'x'.repeat(100)}`);
  t.equal(longest.status, 200, 'the most markets /positions takes pass the header edge');
  t.equal((await getJson(`/activity/positions?user=0x${'ab'.repeat(20)}&market=${markets},0x${'cd'.repeat(32)}`)).status, 400, 'one more is a 400, not a 431');
});

t.test('Empty list parameters are accepted though the document refuses them', async (t) => {
  // `x=` is the list of one empty item (OpenAPI form style), and the document's lists admit no empty item and
  // no empty list, so the server's reading and the document's agree whichever way a client writes it.
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const p of operation.parameters.filter((q) => q.in === 'query')) {
        const lists = p.schema.type === 'array' ? [[p.name, p.schema] as const] : Object.entries((p.schema.properties ?? {}) as Record<string, Schema>).filter(([, s]) => s.type === 'array');
        for (const [name, schema] of lists) t.ok(Number(schema.minItems) >= 1, `${method.toUpperCase()} ${path} ${name}: at least one item`);
      }
    }
  }
  t.same(await getJson('/clob/prices?token_ids=1&sides='), { status: 400, body: { error: 'Invalid side' } });
  t.equal((await getJson('/catalog/markets?slug=')).status, 400);
  t.equal((await getJson('/catalog/markets?closed=')).status, 200, 'an empty value of another parameter is absent');
});

t.test('Empty sortBy, sortDirection and user are accepted though the document refuses them', async (t) => {
  for (const name of ['sortBy', 'sortDirection']) t.notOk(param('/activity/positions', name).allowEmptyValue, `${name}: no empty value (upstream's Data API document)`);
  const user = `user=0x${'ab'.repeat(20)}`;
  t.equal((await getJson(`/activity/positions?${user}&sortBy=`)).status, 400);
  t.equal((await getJson(`/activity/positions?${user}&sortDirection=`)).status, 400);
  t.same(await getJson('/activity/trades?user='), { status: 400, body: { error: 'user is malformed' } });
});

t.test('The bodies of split, merge, redeem and the cancels are not documented', async (t) => {
  for (const [method, path] of [['post', '/clob/split'], ['post', '/clob/merge'], ['post', '/clob/redeem'], ['delete', '/clob/order'], ['delete', '/clob/orders'], ['delete', '/clob/cancel-market-orders'], ['post', '/clob/order'], ['post', '/clob/orders'], ['delete', '/clob/auth/readonly-api-key']] as const) {
    t.ok(op(path, method).requestBody?.content['application/json']?.schema, `${method.toUpperCase()} ${path} documents its body`);
  }
  t.equal(op('/clob/heartbeats', 'post').requestBody?.required, false, 'a heartbeat may have no body');
  t.match(op('/clob/split', 'post').requestBody?.content['application/json']?.schema, { required: ['market', 'amount'], properties: { market: { pattern: '^0x[0-9a-fA-F]{64}$' } } });
  // The body is judged only after authentication: a malformed body without valid L2 headers is a 401.
  const res = await fetch(`${svc.baseUrl}/clob/split`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"market": 5}' });
  t.equal(res.status, 401, 'authentication first');
});
