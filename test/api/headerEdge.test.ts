// The header edge (api/http/headerEdge.ts) in front of a real uWS 20.30 listening on a Unix socket:
// underscore header names arrive as hyphens, bodies are untouched, keep-alive and pipelining, chunked
// bodies cut at every byte boundary, the head cap, smuggling attempts, aborts, the client IP header, a
// WebSocket round trip, and close(). The framer's own cases (every refusal, every chunking) run first
// without a server.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';
import type { EdgeErrorCode } from '../../api/http/edge/edgeErrors.js';
import { RequestFramer } from '../../api/http/edge/requestFramer.js';
import { ResponseTracker } from '../../api/http/edge/responseTracker.js';
import { clientIpTail } from '../../api/http/edge/requestHead.js';
import { clientIpOf, normalizeClientIp, startHeaderEdge, type HeaderEdge } from '../../api/http/headerEdge.js';
import { loadUws } from '../../api/http/uwsLoader.js';

const AUTH_HEADERS = [
  'SVC_ADDRESS', 'SVC_API_KEY', 'SVC_PASSPHRASE', 'SVC_TIMESTAMP', 'SVC_SIGNATURE',
  'POLY_ADDRESS', 'POLY_SIGNATURE', 'POLY_TIMESTAMP', 'POLY_NONCE', 'POLY_API_KEY', 'POLY_PASSPHRASE',
];

// --- the framer alone --------------------------------------------------------------------------------

interface Framed {
  readonly out: Buffer;
  readonly requests: number;
  readonly refused: EdgeErrorCode | undefined;
}

const IP_TAIL = clientIpTail('10.0.0.1');

function frame(pieces: readonly Buffer[]): Framed {
  const out: Buffer[] = [];
  let requests = 0;
  let refused: EdgeErrorCode | undefined;
  const framer = new RequestFramer(
    {
      forward: (piece) => out.push(Buffer.from(piece)),
      requestForwarded: () => void requests++,
      reject: (code) => void (refused = code),
    },
    IP_TAIL,
  );
  for (const piece of pieces) framer.push(piece);
  return { out: Buffer.concat(out), requests, refused };
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

function cutAt(stream: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts)].filter((c) => c > 0 && c < stream.length).sort((x, y) => x - y);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const c of [...points, stream.length]) {
    pieces.push(stream.subarray(from, c));
    from = c;
  }
  return pieces;
}

t.test('framer: a head is rewritten, everything else is forwarded byte for byte', async (t) => {
  const got = frame([b('POST /x?a_b=1 HTTP/1.1\r\nHost: h\r\nPOLY_API_KEY: A_B\r\nX_PMX_CLIENT_IP: 6.6.6.6\r\nContent-Length: 12\r\n\r\n\r\nFOO_BAR: x')]);
  t.equal(got.refused, undefined);
  t.equal(
    got.out.toString('latin1'),
    'POST /x?a_b=1 HTTP/1.1\r\nHost: h\r\nPOLY-API-KEY: A_B\r\nContent-Length: 12\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n\r\nFOO_BAR: x',
    'names only; the target, values and body keep their underscores; the client IP header is replaced',
  );
  const plain = frame([b('GET / HTTP/1.1\r\nHost: h\r\n\r\n')]);
  t.equal(plain.out.toString('latin1'), 'GET / HTTP/1.1\r\nHost: h\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n');
  const canonical = frame([b('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:  CHUNKED \r\n\r\n00A;name="v"\r\n0123456789\r\n0\r\nX_Sum: 1\r\n\r\n')]);
  t.equal(
    canonical.out.toString('latin1'),
    'POST / HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\na\r\n0123456789\r\n0\r\n\r\n',
    'chunked framing goes out in the one form uWS 20.30 parses: lower-case hex, no extensions, no trailers',
  );
  t.equal(frame([b('\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n')]).out.toString('latin1').startsWith('GET /'), true, 'empty lines before a request are dropped');
  t.equal(frame([b('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok')]).out.toString('latin1'),
    'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\nok', 'a repeated identical Content-Length is kept once');
});

t.test('framer: underscores in names become hyphens and nothing else changes, across random heads', async (t) => {
  // A seeded generator: names of letters, digits, `-` and `_`; values of any value byte but CR and LF,
  // underscores included; the order of fields and the body unchanged.
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pick = (chars: string, length: number): string => Array.from({ length }, () => chars[next(chars.length)]).join('');
  const NAME = 'abcXYZ09-_';
  const VALUE = 'aZ9_-: \t/"{}\u00e9\u00ff';
  for (let round = 0; round < 300; round++) {
    const fields = Array.from({ length: 1 + next(20) }, () => [`x${pick(NAME, 1 + next(12))}`, pick(VALUE, next(30))] as const);
    const body = round % 3 === 0 ? '' : pick(VALUE, 1 + next(40));
    const lines = [['Host', 'h'] as const, ...fields, ...(body === '' ? [] : [['Content-Length', String(Buffer.byteLength(body, 'latin1'))] as const])];
    const head = `POST /p_q?a_b=1 HTTP/1.1\r\n${lines.map(([n, v]) => `${n}:${v}\r\n`).join('')}\r\n`;
    const want = `POST /p_q?a_b=1 HTTP/1.1\r\n${lines.map(([n, v]) => `${n.replaceAll('_', '-')}:${v}\r\n`).join('')}x-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n${body}`;
    const got = frame([b(head + body)]);
    if (got.refused !== undefined || got.out.toString('latin1') !== want) {
      t.fail(`round ${round}: ${JSON.stringify(head)} gave ${got.refused ?? JSON.stringify(got.out.toString('latin1'))}`);
      return;
    }
  }
  t.pass('300 heads forwarded as expected');
  t.equal(
    frame([b('POST / HTTP/1.1\r\nHost: h\r\nPOLY_A: 1\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n')]).out.toString('latin1'),
    'POST / HTTP/1.1\r\nHost: h\r\nPOLY-A: 1\r\ntransfer-encoding: chunked\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n0\r\n\r\n',
    'with a Transfer-Encoding the whole head is rewritten: its line in the one form uWS parses',
  );
  t.equal(
    frame([b('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')]).out.toString('latin1'),
    'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n0\r\n\r\n',
    'a head that needs no change goes as it is',
  );
  for (const [name, head] of [
    ['a bare LF in a value after an underscore name', 'GET / HTTP/1.1\r\nHost: h\r\nX_A: 1\n2\r\n\r\n'],
    ['a bare CR ending a line', 'GET / HTTP/1.1\r\nHost: h\r\nX_A: 1\r\r\n\r\n'],
    ['a DEL in a value', 'GET / HTTP/1.1\r\nHost: h\r\nX_A: 1\u007f\r\n\r\n'],
  ] as const) t.equal(frame([b(head)]).refused, 'malformed_request', name);
});

t.test('response tracker: each response ends where its framing says, in one piece or cut at every byte', async (t) => {
  const responses =
    'HTTP/1.1 100 Continue\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length:  5 \r\nuWebSockets: 20\r\n\r\nhello' +
    'HTTP/1.1 200 OK\r\nX: a:b\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n' +
    'HTTP/1.1 204 No Content\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n' +
    'HTTP/1.1 404 Not Found\r\nDate: x\r\nContent-Length: 2\r\n\r\n{}';
  const stream = b(responses);
  for (let cut = 0; cut < stream.length; cut++) {
    let progressed = 0;
    const tracker = new ResponseTracker({ upgradeDecided: () => {}, progressed: () => void progressed++ });
    tracker.expect(false);
    tracker.expect(false);
    tracker.expect(false);
    tracker.expect(false, true);
    tracker.expect(false);
    for (const piece of cutAt(stream, [cut])) tracker.push(piece);
    if (tracker.completed !== 5 || progressed !== 5 || !tracker.atBoundary || tracker.lost) {
      t.fail(`cut at ${cut}: ${tracker.completed} responses (${progressed} told), at a boundary ${tracker.atBoundary}, lost ${tracker.lost}`);
      return;
    }
  }
  t.pass('5 responses at every cut, each end told to the sink once: Content-Length with spaces, chunked in any case, none, HEAD, after an interim 100');
  for (const bad of ['HTTP/1.0 200 OK\r\n\r\n', 'HTTP/1.1 2x0 OK\r\n\r\n', 'HTTP/1.1 099 Low\r\n\r\n']) {
    const tracker = new ResponseTracker({ upgradeDecided: () => {}, progressed: () => {} });
    tracker.expect(false);
    tracker.push(b(bad));
    t.equal(tracker.lost, true, `${JSON.stringify(bad)}: a stream it cannot follow`);
  }
});

t.test('framer: HTTP/1.0 is forwarded as HTTP/1.1, with Host and Connection made explicit', async (t) => {
  const out = (request: string): string => frame([b(request)]).out.toString('latin1');
  t.equal(out('GET /ok HTTP/1.0\r\n\r\n'), 'GET /ok HTTP/1.1\r\nhost: \r\nconnection: close\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n', 'no Host: an empty one is added; no keep-alive asked: close');
  t.equal(
    out('GET /ok?a=1 HTTP/1.0\r\nHost: h\r\nConnection: Keep-Alive\r\nUpgrade: websocket\r\nX_A: 1\r\n\r\n'),
    'GET /ok?a=1 HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nconnection: keep-alive\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n',
    'keep-alive asked: kept; Upgrade ignored (RFC 9110 §7.8)',
  );
  const post = frame([b('POST /x HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}GET /y HTTP/1.0\r\n\r\n')]);
  t.equal(post.requests, 2, 'a body by Content-Length, then the next request');
  t.match(post.out.toString('latin1'), /^POST \/x HTTP\/1\.1\r\nContent-Length: 2\r\nhost: \r\nconnection: close\r\nx-pmx-client-ip: 10\.0\.0\.1\r\nx-pmx-edge-conn: 0\r\n\r\n\{\}GET \/y HTTP\/1\.1\r\n/);
});

t.test('framer: a method uWS does not know is forwarded as TRACE with x-pmx-method', async (t) => {
  const got = frame([b('QUERY /clob/book HTTP/1.1\r\nHost: h\r\nX-PMX-Method: GET\r\nContent-Length: 2\r\n\r\n{}get / HTTP/1.1\r\nHost: h\r\n\r\n')]);
  t.equal(got.refused, undefined);
  t.equal(got.requests, 2);
  t.equal(
    got.out.toString('latin1'),
    'TRACE /clob/book HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nx-pmx-method: QUERY\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n{}' +
      'TRACE / HTTP/1.1\r\nHost: h\r\nx-pmx-method: get\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n',
    "the client's own x-pmx-method is dropped; methods are case-sensitive, so `get` is unknown",
  );
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']) {
    t.equal(frame([b(`${method} / HTTP/1.1\r\nHost: h\r\n\r\n`)]).out.toString('latin1'), `${method} / HTTP/1.1\r\nHost: h\r\nx-pmx-client-ip: 10.0.0.1\r\nx-pmx-edge-conn: 0\r\n\r\n`, `${method} goes as it is`);
  }
});

t.test('framer: refusals, and nothing of a refused request is forwarded', async (t) => {
  const fields = (n: number): string => Array.from({ length: n }, (_, i) => `h${i}: v\r\n`).join('');
  const cases: [string, string, EdgeErrorCode][] = [
    ['CL and TE', 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'malformed_request'],
    ['TE and CL spelled with an underscore', 'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent_Length: 3\r\n\r\n', 'malformed_request'],
    ['two different Content-Lengths', 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', 'malformed_request'],
    ['a Content-Length list', 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc', 'malformed_request'],
    ['a signed Content-Length', 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc', 'malformed_request'],
    ['a Content-Length uWS cannot parse', 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000000\r\n\r\n', 'body_too_large'],
    ['a coding other than chunked', 'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', 'malformed_request'],
    ['two Transfer-Encodings', 'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n', 'malformed_request'],
    ['obs-fold', 'GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n 2\r\n\r\n', 'malformed_request'],
    ['bare LF', 'GET / HTTP/1.1\nHost: h\n\n', 'malformed_request'],
    ['bare CR in a value', 'GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r2\r\n\r\n', 'malformed_request'],
    ['NUL in a value', 'GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\u00002\r\n\r\n', 'malformed_request'],
    ['space before the colon', 'GET / HTTP/1.1\r\nHost : h\r\n\r\n', 'malformed_request'],
    ['a name byte uWS drops on', 'GET / HTTP/1.1\r\nHost: h\r\nX.A: 1\r\n\r\n', 'malformed_request'],
    ['no Host', 'GET / HTTP/1.1\r\n\r\n', 'malformed_request'],
    ['two Hosts', 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 'malformed_request'],
    ['absolute-form target', 'GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n', 'malformed_request'],
    ['a space in the target', 'GET /a b HTTP/1.1\r\nHost: h\r\n\r\n', 'malformed_request'],
    ['a method that is not a token', '(GET) / HTTP/1.1\r\nHost: h\r\n\r\n', 'malformed_request'],
    ['HTTP/2.0', 'GET / HTTP/2.0\r\nHost: h\r\n\r\n', 'version_not_supported'],
    ['HTTP/0.9', 'GET / HTTP/0.9\r\nHost: h\r\n\r\n', 'version_not_supported'],
    ['HTTP/1.0 with Transfer-Encoding (RFC 9112 §6.1)', 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'malformed_request'],
    ['two Hosts in HTTP/1.0', 'GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n', 'malformed_request'],
    ['an upgrade with a body', 'GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nContent-Length: 1\r\n\r\nx', 'malformed_request'],
    ['48 fields plus the IP line', `GET / HTTP/1.1\r\nHost: h\r\n${fields(47)}\r\n`, 'header_too_large'],
    ['a head over 64 KiB', `GET / HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`, 'header_too_large'],
    ['an unterminated head over 64 KiB', `GET / HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(64 * 1024)}`, 'header_too_large'],
  ];
  for (const [name, request, code] of cases) {
    const got = frame([b(request)]);
    t.equal(got.refused, code, name);
    t.equal(got.requests, 0, `${name}: not forwarded`);
  }
  t.equal(frame([b(`GET / HTTP/1.1\r\nHost: h\r\n${fields(46)}\r\n`)]).refused, undefined, '47 fields plus the IP line is uWS’s limit of 48');
  const badChunks: [string, string, EdgeErrorCode][] = [
    ['no CRLF after chunk data', '3\r\nabcXY0\r\n\r\n', 'malformed_request'],
    ['a chunk size that is not hex', 'z\r\n', 'malformed_request'],
    ['bare LF after a chunk size', '3\nabc\r\n', 'malformed_request'],
    ['a chunk uWS cannot take', '10000000\r\n', 'body_too_large'],
    ['an obs-folded trailer', '0\r\nX-T: 1\r\n 2\r\n\r\n', 'malformed_request'],
  ];
  for (const [name, body, code] of badChunks) {
    const got = frame([b(`POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${body}`)]);
    t.equal(got.refused, code, name);
  }
});

// A model of the canonical chunked form, independent of the framer: the oracle for every chunking.
interface ChunkedCase {
  readonly chunks: readonly Uint8Array[];
  readonly upperHex: boolean;
  readonly extensions: boolean;
  readonly trailer: boolean;
}

function encodeChunked(c: ChunkedCase): { wire: Buffer; canonical: Buffer; body: Buffer } {
  const wire: Buffer[] = [b('POST /echo HTTP/1.1\r\nHost: h\r\nPOLY_API_KEY: k\r\nTransfer-Encoding: chunked\r\n\r\n')];
  const canonical: Buffer[] = [b('POST /echo HTTP/1.1\r\nHost: h\r\nPOLY-API-KEY: k\r\ntransfer-encoding: chunked\r\n'), IP_TAIL];
  for (const data of c.chunks.filter((d) => d.length > 0)) {
    const hex = data.length.toString(16);
    wire.push(b(`${c.upperHex ? `0${hex.toUpperCase()}` : hex}${c.extensions ? ';a=b;c' : ''}\r\n`), Buffer.from(data), b('\r\n'));
    canonical.push(b(`${hex}\r\n`), Buffer.from(data), b('\r\n'));
  }
  wire.push(b(`0${c.extensions ? ';last' : ''}\r\n${c.trailer ? 'X_Checksum: 1\r\nx-pmx-client-ip: 6.6.6.6\r\n' : ''}\r\n`));
  canonical.push(b('0\r\n\r\n'));
  const next = b('GET /next HTTP/1.1\r\nHost: h\r\n\r\n');
  wire.push(next);
  canonical.push(b('GET /next HTTP/1.1\r\nHost: h\r\n'), IP_TAIL);
  return { wire: Buffer.concat(wire), canonical: Buffer.concat(canonical), body: Buffer.concat(c.chunks.map((d) => Buffer.from(d))) };
}

// Chunk data that looks like framing: it must be carried, never parsed.
const trickyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }),
  fc.constantFrom(b('\r\n0\r\n\r\n'), b('\r\nGET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n'), b('FOO_BAR: x\r\n'), b('\r\n\r\n')).map((x) => new Uint8Array(x)),
);
const chunkedCase = fc.record({
  chunks: fc.array(trickyBytes, { maxLength: 5 }),
  upperHex: fc.boolean(),
  extensions: fc.boolean(),
  trailer: fc.boolean(),
});

t.test('framer: a chunked request cut at every byte boundary gives the same output', async (t) => {
  const { wire, canonical } = encodeChunked({ chunks: [b('hello'), b('\r\n0\r\n\r\n'), b('x'.repeat(300))], upperHex: true, extensions: true, trailer: true });
  t.equal(frame([wire]).out.toString('latin1'), canonical.toString('latin1'), 'in one piece');
  const wrong: string[] = [];
  for (let i = 1; i < wire.length; i++) {
    const got = frame(cutAt(wire, [i]));
    if (!got.out.equals(canonical) || got.requests !== 2) wrong.push(`${i}`);
    for (const j of [i + 1, i + 2, i + 3, i + 7]) if (!frame(cutAt(wire, [i, j])).out.equals(canonical)) wrong.push(`${i},${j}`);
  }
  t.same(wrong, [], `every single cut (${wire.length - 1}) and cuts close together`);
  t.ok(frame(cutAt(wire, Array.from({ length: wire.length }, (_, i) => i))).out.equals(canonical), 'one byte at a time');
  fc.assert(
    fc.property(chunkedCase, fc.array(fc.nat({ max: 600 }), { maxLength: 30 }), (c, cuts) => {
      const e = encodeChunked(c);
      const got = frame(cutAt(e.wire, cuts));
      return got.refused === undefined && got.requests === 2 && got.out.equals(e.canonical);
    }),
    { numRuns: 500 },
  );
});

t.test('clientIpOf trusts the header only behind the edge', async (t) => {
  t.equal(clientIpOf({ 'x-pmx-client-ip': '203.0.113.9' }, '', true), '203.0.113.9');
  t.equal(clientIpOf({ 'x-pmx-client-ip': '203.0.113.9' }, '198.51.100.1', false), '198.51.100.1', 'a direct client cannot choose its IP');
  t.equal(clientIpOf({}, '198.51.100.1', true), '198.51.100.1');
  t.equal(normalizeClientIp('::ffff:192.0.2.1'), '192.0.2.1');
  t.equal(normalizeClientIp('2001:db8::1'), '2001:db8::1');
});

// --- a real uWS behind the edge ----------------------------------------------------------------------

const { uws, native } = loadUws(false);

interface Upstream {
  readonly path: string;
  readonly directPort: number;
  readonly hits: Map<string, number>;
  aborted: Promise<void>;
  releaseSlow: () => void;
}

async function startUpstream(t: Test): Promise<Upstream> {
  const dir = mkdtempSync(join(tmpdir(), 'pmx-edge-'));
  const path = join(dir, 'uws.sock');
  let onAborted: () => void = () => {};
  const slowWaiters: (() => void)[] = [];
  const up: Upstream = {
    path,
    directPort: 0,
    hits: new Map(),
    aborted: new Promise<void>((r) => (onAborted = r)),
    releaseSlow: () => slowWaiters.splice(0).forEach((f) => f()),
  };
  const count = (url: string): void => void up.hits.set(url, (up.hits.get(url) ?? 0) + 1);
  const app = uws.App();
  app.any('/headers', (res: HttpResponse, req: HttpRequest) => {
    count(req.getUrl());
    const headers: Record<string, string> = {};
    req.forEach((k, v) => void (headers[k] = v));
    res.writeHeader('content-type', 'application/json').end(JSON.stringify(headers));
  });
  app.post('/echo', (res: HttpResponse, req: HttpRequest) => {
    count(req.getUrl());
    const parts: Buffer[] = [];
    res.onAborted(() => {});
    res.onData((ab, last) => {
      parts.push(Buffer.from(ab.slice(0)));
      if (last) res.end(Buffer.concat(parts));
    });
  });
  app.post('/hold-body', (res: HttpResponse, req: HttpRequest) => {
    count(req.getUrl());
    res.onAborted(() => onAborted());
    res.onData(() => {});
  });
  app.get('/slow', (res: HttpResponse, req: HttpRequest) => {
    count(req.getUrl());
    let gone = false;
    res.onAborted(() => void (gone = true));
    slowWaiters.push(() => {
      if (!gone) res.end('slow done');
    });
  });
  app.ws('/ws', { message: (ws, message, isBinary) => void ws.send(message, isBinary) });
  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    count(req.getUrl());
    res.end(`hit ${req.getUrl()}`);
  });
  const unix = await new Promise<us_listen_socket>((resolve, reject) => app.listen_unix((s) => (s ? resolve(s) : reject(new Error('listen_unix'))), path));
  const tcp = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen')))));
  (up as { directPort: number }).directPort = uws.us_socket_local_port(tcp);
  t.teardown(() => {
    uws.us_listen_socket_close(unix);
    uws.us_listen_socket_close(tcp);
    rmSync(dir, { recursive: true, force: true });
  });
  return up;
}

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** Content-Length-framed responses (all uWS and the edge send here), in order. */
function parseResponses(buf: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let pos = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', pos);
    if (end < 0) return out;
    const lines = buf.toString('latin1', pos, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (end + 4 + length > buf.length) return out;
    out.push({ status: Number(lines[0]?.split(' ')[1]), headers, body: buf.subarray(end + 4, end + 4 + length) });
    pos = end + 4 + length;
  }
}

interface Exchange {
  readonly responses: RawResponse[];
  readonly closed: boolean;
  readonly bytes: Buffer;
}

/** Writes `pieces` (with `gapMs` between them) on a new connection; resolves after `responses` responses, on close, or after `timeoutMs`. */
function exchange(port: number, pieces: readonly (string | Buffer)[], opts: { responses?: number; gapMs?: number; timeoutMs?: number } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const got: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const bytes = Buffer.concat(got);
      resolve({ responses: parseResponses(bytes), closed, bytes });
    };
    const timer = setTimeout(() => finish(false), opts.timeoutMs ?? 2000);
    socket.on('data', (d: Buffer) => {
      got.push(d);
      if (opts.responses !== undefined && parseResponses(Buffer.concat(got)).length >= opts.responses) finish(false);
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && opts.gapMs !== undefined) await delay(opts.gapMs);
        if (!socket.destroyed) socket.write(piece);
      }
    });
  });
}

async function startEdge(t: Test, up: Upstream, opts: { closeGraceMs?: number } = {}): Promise<HeaderEdge> {
  const edge = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { path: up.path }, ...opts });
  t.teardown(() => edge.close());
  return edge;
}

const GET = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: h\r\n${extra}\r\n`;

t.test('behind the edge', async (t) => {
  t.equal(native, true, 'the native uWS binary loaded');
  const up = await startUpstream(t);
  const edge = await startEdge(t, up);
  const base = `http://127.0.0.1:${edge.port}`;

  await t.test('uWebSockets.js#1018: uWS 20.30 alone drops a request with POLY_API_KEY; through the edge it is answered', async (t) => {
    const direct = await exchange(up.directPort, [GET('/headers', 'POLY_API_KEY: x\r\n')], { responses: 1, timeoutMs: 500 });
    t.equal(direct.bytes.length, 0, 'no byte back from uWS directly (when this fails, uWS is fixed and the edge may go)');
    const viaEdge = await exchange(edge.port, [GET('/headers', 'POLY_API_KEY: x\r\n')], { responses: 1 });
    t.equal(viaEdge.responses[0]?.status, 200);
    t.equal((JSON.parse(viaEdge.responses[0]?.body.toString() ?? '{}') as Record<string, string>)['poly-api-key'], 'x');
  });

  await t.test('every L2 auth header reaches uWS as hyphens, lower-cased, with its value intact', async (t) => {
    const sent = Object.fromEntries(AUTH_HEADERS.map((name) => [name, `${name.toLowerCase()}_value+/=`]));
    const res = await fetch(`${base}/headers`, { headers: sent });
    t.equal(res.status, 200);
    const seen = (await res.json()) as Record<string, string>;
    for (const name of AUTH_HEADERS) t.equal(seen[name.toLowerCase().replace(/_/g, '-')], sent[name], name);
    t.equal(seen['x-pmx-client-ip'], '127.0.0.1', 'the client IP is added');
  });

  await t.test('the client IP header cannot be forged through the edge', async (t) => {
    const got = await exchange(edge.port, [GET('/headers', 'x-pmx-client-ip: 6.6.6.6\r\nX_PMX_CLIENT_IP: 7.7.7.7\r\n')], { responses: 1 });
    const seen = JSON.parse(got.responses[0]?.body.toString() ?? '{}') as Record<string, string>;
    t.equal(seen['x-pmx-client-ip'], '127.0.0.1');
    t.equal(clientIpOf(seen, '', true), '127.0.0.1');
  });

  await t.test("the connection's number cannot be forged through the edge either", async (t) => {
    const got = await exchange(edge.port, [GET('/headers', 'x-pmx-edge-conn: 999999\r\nX_PMX_EDGE_CONN: 888888\r\n')], { responses: 1 });
    const seen = JSON.parse(got.responses[0]?.body.toString() ?? '{}') as Record<string, string>;
    t.match(seen['x-pmx-edge-conn'], /^[1-9][0-9]*$/, 'the edge numbers the connection itself');
    t.not(seen['x-pmx-edge-conn'], '999999');
    t.not(seen['x-pmx-edge-conn'], '888888');
  });

  await t.test('a body with header-like bytes is not modified', async (t) => {
    const body = Buffer.concat([b('{"a":1}\r\nFOO_BAR: x\r\n\r\nPOLY_API_KEY: y'), randomBytes(4096), b('\r\nFOO_BAR: x')]);
    const res = await fetch(`${base}/echo`, { method: 'POST', body, headers: { POLY_API_KEY: 'k' } });
    t.ok(Buffer.from(await res.arrayBuffer()).equals(body), 'echoed byte for byte');
    const big = randomBytes(4 * 1024 * 1024);
    const bigRes = await fetch(`${base}/echo`, { method: 'POST', body: big });
    t.ok(Buffer.from(await bigRes.arrayBuffer()).equals(big), '4 MiB both ways, under back-pressure');
  });

  await t.test('keep-alive: a fetch sequence shares one connection; raw pipelined requests in one write', async (t) => {
    const before = edge.stats.connectionsTotal;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/headers`, { headers: { SVC_API_KEY: `k${i}` } });
      t.equal(((await res.json()) as Record<string, string>)['svc-api-key'], `k${i}`);
    }
    t.ok(edge.stats.connectionsTotal - before <= 1, 'at most one new connection for five requests');
    const pipelined = [
      GET('/headers', 'SVC_API_KEY: one\r\n'),
      'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\nPOLY_NONCE: 2\r\n\r\nGET /x_y HTTP',
      'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nthre\r\n1;x\r\ne\r\n0\r\nX_T: 1\r\n\r\n',
      'HEAD /head HTTP/1.1\r\nHost: h\r\n\r\n',
      GET('/last', 'POLY_PASSPHRASE: p\r\n'),
    ].join('');
    const got = await exchange(edge.port, [pipelined], { responses: 5 });
    t.same(got.responses.map((r) => r.status), [200, 200, 200, 200, 200]);
    t.equal((JSON.parse(got.responses[0]?.body.toString() ?? '{}') as Record<string, string>)['svc-api-key'], 'one');
    t.equal(got.responses[1]?.body.toString(), 'GET /x_y HTTP');
    t.equal(got.responses[2]?.body.toString(), 'three', 'a chunked body with an extension and a trailer');
    t.equal(got.responses[4]?.body.toString(), 'hit /last');
  });

  await t.test('Expect: 100-continue: uWS’s interim 100 is not taken for the answer', async (t) => {
    const got = await exchange(edge.port, [
      'POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nPOLY_NONCE: 1\r\nContent-Length: 5\r\n\r\n',
      'hello' + GET('/second') + 'GET /bad HTTP/1.1\r\nHost: h\r\nX.Y: 1\r\n\r\n',
    ], { gapMs: 100 });
    t.same(got.responses.map((r) => r.status), [100, 200, 200, 400], 'the 400 comes after both real answers');
    t.equal(got.responses[1]?.body.toString(), 'hello');
  });

  await t.test('chunked bodies cut at arbitrary byte boundaries reach uWS whole', async (t) => {
    await fc.assert(
      fc.asyncProperty(chunkedCase, fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 8 }), async (c, cuts) => {
        const e = encodeChunked(c);
        const got = await exchange(edge.port, cutAt(e.wire, cuts), { responses: 2, gapMs: 2 });
        return got.responses.length === 2 && got.responses[0]?.status === 200 && got.responses[0].body.equals(e.body) && got.responses[1]?.body.toString() === 'hit /next';
      }),
      { numRuns: 25 },
    );
    t.pass('25 random chunkings');
  });

  await t.test('a head over 64 KiB is answered 431', async (t) => {
    const got = await exchange(edge.port, [GET('/headers', `X-Big: ${'a'.repeat(65 * 1024)}\r\n`)]);
    t.equal(got.responses[0]?.status, 431);
    t.ok(got.closed, 'and the connection is closed');
    const under = await exchange(edge.port, [GET('/headers', `X_Big: ${'a'.repeat(60 * 1024)}\r\n`)], { responses: 1 });
    t.equal(under.responses[0]?.status, 200, 'a 60 KiB head with an underscore name still reaches uWS');
  });

  await t.test('smuggling attempts are answered 400 and never reach uWS', async (t) => {
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n';
    const attempts = {
      'CL.TE': `POST /front HTTP/1.1\r\nHost: h\r\nContent-Length: ${5 + smuggled.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
      'TE.CL': `POST /front HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${(smuggled.length).toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
      'two Content-Lengths': `POST /front HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      'Content_Length beside Content-Length': `POST /front HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent_Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      'Transfer_Encoding beside Content-Length': `POST /front HTTP/1.1\r\nHost: h\r\nTransfer_Encoding: chunked\r\nContent-Length: ${5 + smuggled.length}\r\n\r\n0\r\n\r\n${smuggled}`,
      'a chunk size with a bad digit': `POST /front-chunked HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\n${smuggled}`,
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      const got = await exchange(edge.port, [attempt]);
      t.equal(got.responses.length, 1, `${name}: one response`);
      t.equal(got.responses[0]?.status, 400, name);
      t.same(JSON.parse(got.responses[0]?.body.toString() ?? '{}'), { error: 'malformed request' });
      t.ok(got.closed, `${name}: closed`);
    }
    t.equal(up.hits.get('/smuggled'), undefined, 'the smuggled request never reached uWS');
    t.equal(up.hits.get('/front'), undefined, 'no refused head was forwarded');
    const after = await exchange(edge.port, [GET('/first') + 'HEAD /head HTTP/1.1\r\nHost: h\r\n\r\n' + attempts['CL.TE']]);
    t.same(after.responses.map((r) => r.status), [200, 200, 400], 'earlier pipelined requests are answered first, then the 400');
  });

  await t.test('a client that aborts mid-body aborts the request in uWS', async (t) => {
    const open = edge.stats.connectionsOpen;
    const socket = connect(edge.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('POST /hold-body HTTP/1.1\r\nHost: h\r\nPOLY_API_KEY: k\r\nContent-Length: 100000\r\n\r\n' + 'x'.repeat(1000));
    while ((up.hits.get('/hold-body') ?? 0) === 0) await delay(5);
    socket.destroy();
    await Promise.race([up.aborted, delay(2000).then(() => Promise.reject(new Error('uWS never saw the abort')))]);
    while (edge.stats.connectionsOpen > open) await delay(5);
    t.pass('uWS saw onAborted and the edge closed both sides');
  });

  await t.test('a WebSocket upgrade through the edge, with a message round trip', async (t) => {
    const got = await wsRoundTrip(edge.port, 'hello_ws: POLY_API_KEY', 'GET /x HTTP/1.1\r\nHost: h\r\n\r\n');
    t.equal(got.status, 101);
    t.equal(got.accepted, true, 'Sec-WebSocket-Accept matches the key');
    t.same(got.echoed, ['hello_ws: POLY_API_KEY', 'GET /x HTTP/1.1\r\nHost: h\r\n\r\n'], 'a frame sent right behind the upgrade request, then one after the 101, came back');
    t.equal(edge.stats.upgrades, 1);
    // Upgrade to a path with no WebSocket: uWS answers 200, the connection stays HTTP and is framed again.
    const refused = await exchange(edge.port, [GET('/plain', 'Upgrade: websocket\r\nConnection: Upgrade\r\n') + GET('/headers', 'SVC_PASSPHRASE: p\r\n')], { responses: 2 });
    t.same(refused.responses.map((r) => r.status), [200, 200]);
    t.equal((JSON.parse(refused.responses[1]?.body.toString() ?? '{}') as Record<string, string>)['svc-passphrase'], 'p', 'the request after a refused upgrade is rewritten');
    t.equal(edge.stats.upgrades, 1);
  });

  await t.test('a client FIN is passed on only after its responses (uWS alone aborts them)', async (t) => {
    const socket = connect({ port: edge.port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('connect', () => socket.end(GET('/slow', 'POLY_API_KEY: k\r\n')));
    const hits = up.hits.get('/slow') ?? 0;
    while ((up.hits.get('/slow') ?? 0) === hits) await delay(5);
    await delay(50);
    up.releaseSlow();
    await closed;
    t.equal(parseResponses(Buffer.concat(got))[0]?.body.toString(), 'slow done');
  });

  await t.test('a loopback-port upstream works the same', async (t) => {
    const viaTcp = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { host: '127.0.0.1', port: up.directPort } });
    t.teardown(() => viaTcp.close());
    const res = await fetch(`http://127.0.0.1:${viaTcp.port}/headers`, { headers: { POLY_SIGNATURE: 's_1' } });
    const seen = (await res.json()) as Record<string, string>;
    t.equal(seen['poly-signature'], 's_1');
    t.equal(seen['x-pmx-client-ip'], '127.0.0.1');
  });

  await t.test('an unreachable upstream is answered 502', async (t) => {
    const lonely = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { path: join(tmpdir(), `pmx-edge-missing-${process.pid}.sock`) } });
    t.teardown(() => lonely.close());
    const got = await exchange(lonely.port, [GET('/')]);
    t.equal(got.responses[0]?.status, 502);
    t.same(JSON.parse(got.responses[0]?.body.toString() ?? '{}'), { error: 'upstream unavailable' });
  });

  await t.test('close() answers what is in flight, closes idle connections and stops listening', async (t) => {
    const edge2 = await startEdge(t, up);
    const idle = connect(edge2.port, '127.0.0.1');
    const idleClosed = new Promise<void>((r) => idle.on('close', () => r()));
    idle.on('error', () => {});
    await new Promise<void>((r) => idle.on('connect', () => r()));
    const hits = up.hits.get('/slow') ?? 0;
    const slow = exchange(edge2.port, [GET('/slow', 'POLY_API_KEY: k\r\n')], { timeoutMs: 5000 });
    while ((up.hits.get('/slow') ?? 0) === hits) await delay(5);
    const closed = edge2.close();
    await idleClosed;
    t.pass('the idle connection was closed at once');
    const refusedConnect = await new Promise<string>((r) => connect(edge2.port, '127.0.0.1').on('error', (e: NodeJS.ErrnoException) => r(e.code ?? '')).on('connect', () => r('connected')));
    t.equal(refusedConnect, 'ECONNREFUSED', 'no longer listening');
    up.releaseSlow();
    const got = await slow;
    t.equal(got.responses[0]?.body.toString(), 'slow done', 'the request in flight was answered');
    t.ok(got.closed, 'then its connection closed');
    await closed;
    t.equal(edge2.stats.connectionsOpen, 0);
  });

  t.equal(edge.stats.internalErrors, 0);
});

/** A hand-written WebSocket client (Node 20 has WebSocket only behind --experimental-websocket). */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((x, i) => x ^ (mask[i % 4] as number))]);
}

/** Sends `first` right behind the upgrade request (held by the edge until the 101), then `second` after the first echo. */
async function wsRoundTrip(port: number, first: string, second: string): Promise<{ status: number; accepted: boolean; echoed: string[] }> {
  const key = randomBytes(16).toString('base64');
  const expected = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  const socket: Socket = connect(port, '127.0.0.1');
  const request = `GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nPOLY_API_KEY: k\r\n\r\n`;
  socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(request), maskedTextFrame(first)])));
  let buf = Buffer.alloc(0);
  let head: string | undefined;
  const echoed: string[] = [];
  for await (const chunk of socket) {
    buf = Buffer.concat([buf, chunk as Buffer]);
    if (head === undefined) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) continue;
      head = buf.toString('latin1', 0, end);
      buf = buf.subarray(end + 4);
    }
    while (buf.length >= 2 && buf.length >= 2 + ((buf[1] as number) & 0x7f)) {
      const length = (buf[1] as number) & 0x7f;
      echoed.push(buf.subarray(2, 2 + length).toString());
      buf = buf.subarray(2 + length);
      if (echoed.length === 1) socket.write(maskedTextFrame(second));
    }
    if (echoed.length === 2) break;
  }
  socket.destroy();
  return {
    status: Number(head?.split(' ')[1]),
    accepted: head !== undefined && new RegExp(`sec-websocket-accept: ${expected.replace(/[+/=]/g, (c) => `\\${c}`)}`, 'i').test(head),
    echoed,
  };
}
