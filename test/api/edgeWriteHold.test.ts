// The header edge's hold of write requests (api/http/edge/writeHold.ts, --edge-hold-ms): the hold's rules on
// their own (timer, the early end when full, never while more than a few requests are in flight), then
// through the edge in front of a real uWS 20.30 that stamps when each request reaches it: writes that reach an
// idle service, or one answering a few requests, go together after the hold, reads and writes to a busy
// service pass at once, a held connection keeps its pipelined requests and bodies in order, and close()
// forwards what is held.

import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import t, { type Test } from 'tap';
import type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';
import { HOLD_UP_TO_IN_FLIGHT, WriteHold, type HeldConnection } from '../../api/http/edge/writeHold.js';
import { startHeaderEdge, type HeaderEdge } from '../../api/http/headerEdge.js';
import { loadUws } from '../../api/http/uwsLoader.js';

const { uws } = loadUws(false);

t.test('WriteHold: opens only while at most upToInFlight requests are in flight, ends after holdMs or when full', async (t) => {
  const counters = { holds: 0, heldRequests: 0 };
  const released: string[] = [];
  const conn = (name: string): HeldConnection => ({ release: () => void released.push(name) });

  const off = new WriteHold(0, counters);
  t.equal(off.holds(), false, 'holdMs 0: never');

  const hold = new WriteHold(40, counters, 3, 1);
  t.equal(hold.holds(), true, 'nothing in flight: a write waits');
  hold.add(conn('a'), false);
  hold.inFlightChanged(1);
  t.equal(hold.holds(), true, 'a hold is open: the next write joins it, though one is in flight');
  hold.add(conn('b'), false);
  hold.inFlightChanged(1);
  t.same(released, [], 'nothing released before the hold ends');
  await delay(80);
  t.same(released, ['a', 'b'], 'the hold ended after holdMs and released every connection once');
  t.equal(hold.holds(), false, 'more than upToInFlight (1) in flight and no hold open: writes pass');
  hold.inFlightChanged(-1);
  t.equal(hold.holds(), true, 'one left in flight (upToInFlight): the next write opens a hold');
  hold.inFlightChanged(-1);
  t.equal(hold.holds(), true, 'all answered: the next write opens a hold');

  released.length = 0;
  const c = conn('c');
  hold.add(c, false);
  hold.add(c, true);
  t.same(released, [], 'two requests held');
  hold.add(conn('d'), false);
  t.same(released, ['c', 'd'], 'the third (fullAt) ends the hold at once; a connection held twice is released once');
  t.equal(counters.holds, 2);
  t.equal(counters.heldRequests, 5);
  await delay(60);
  t.same(released, ['c', 'd'], 'the ended hold leaves no timer behind');
});

interface Arrivals {
  readonly path: string;
  /** When each request reached uWS (performance.now()), by its x-tag header. */
  readonly at: Map<string, number>;
  releaseSlow: () => void;
}

async function startUpstream(t: Test): Promise<Arrivals> {
  const dir = mkdtempSync(join(tmpdir(), 'pmx-hold-'));
  const path = join(dir, 'uws.sock');
  const slow: (() => void)[] = [];
  const up: Arrivals = { path, at: new Map(), releaseSlow: () => slow.splice(0).forEach((f) => f()) };
  const app = uws.App();
  app.post('/echo', (res: HttpResponse, req: HttpRequest) => {
    up.at.set(req.getHeader('x-tag'), performance.now());
    const parts: Buffer[] = [];
    res.onAborted(() => {});
    res.onData((ab, last) => {
      parts.push(Buffer.from(ab.slice(0)));
      if (last) res.end(Buffer.concat(parts));
    });
  });
  app.get('/slow', (res: HttpResponse) => {
    let gone = false;
    res.onAborted(() => void (gone = true));
    slow.push(() => {
      if (!gone) res.end('slow done');
    });
  });
  app.get('/read', (res: HttpResponse, req: HttpRequest) => {
    up.at.set(req.getHeader('x-tag'), performance.now());
    res.end('read');
  });
  const listen = await new Promise<us_listen_socket>((resolve, reject) => app.listen_unix((s) => (s ? resolve(s) : reject(new Error('listen_unix'))), path));
  t.teardown(() => {
    uws.us_listen_socket_close(listen);
    rmSync(dir, { recursive: true, force: true });
  });
  return up;
}

/** Writes `raw` on a new connection; resolves with every byte received once `count` response bodies ending in `until` are in. */
function send(port: number, raw: string, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer ending in ${until}: ${got}`));
    }, 5000);
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.endsWith(until)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('connect', () => socket.write(raw));
  });
}

const post = (tag: string, body: string): string => `POST /echo HTTP/1.1\r\nHost: h\r\nx-tag: ${tag}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const get = (path: string, tag: string): string => `GET ${path} HTTP/1.1\r\nHost: h\r\nx-tag: ${tag}\r\n\r\n`;

const HOLD_MS = 300;

async function startEdge(t: Test, up: Arrivals): Promise<HeaderEdge> {
  const edge = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { path: up.path }, holdMs: HOLD_MS });
  t.teardown(() => edge.close());
  return edge;
}

t.test('through the edge in front of uWS', async (t) => {
  const up = await startUpstream(t);
  const edge = await startEdge(t, up);

  await t.test('writes that reach an idle service are held, then reach it together', async (t) => {
    const sent = performance.now();
    const first = send(edge.port, post('w1', 'one'), 'one');
    await delay(HOLD_MS / 3);
    const second = send(edge.port, post('w2', 'two'), 'two');
    await Promise.all([first, second]);
    const w1 = (up.at.get('w1') ?? 0) - sent;
    const w2 = (up.at.get('w2') ?? 0) - sent;
    t.ok(w1 >= HOLD_MS - 5, `the first write reached uWS after the hold (${w1.toFixed(0)} ms)`);
    t.ok(Math.abs(w2 - w1) < HOLD_MS / 3, `the second, sent a third of the hold later, reached it with the first (${w1.toFixed(0)} / ${w2.toFixed(0)} ms)`);
    t.equal(edge.stats.holds, 1, 'one hold');
    t.equal(edge.stats.heldRequests, 2, 'both held');
  });

  await t.test('reads are never held', async (t) => {
    const sent = performance.now();
    await send(edge.port, get('/read', 'r1'), 'read');
    const r1 = (up.at.get('r1') ?? 0) - sent;
    t.ok(r1 < HOLD_MS / 2, `the read reached uWS at once (${r1.toFixed(0)} ms)`);
    t.equal(edge.stats.heldRequests, 2, 'nothing more held');
  });

  await t.test('while a few requests are in flight, a write is held', async (t) => {
    const slow = send(edge.port, get('/slow', 's'), 'slow done');
    await delay(50);
    const sent = performance.now();
    await send(edge.port, post('w3', 'three'), 'three');
    const w3 = (up.at.get('w3') ?? 0) - sent;
    t.ok(w3 >= HOLD_MS - 5, `one request in flight: the write reached uWS after the hold (${w3.toFixed(0)} ms)`);
    t.equal(edge.stats.heldRequests, 3, 'held');
    up.releaseSlow();
    await slow;
  });

  await t.test('while more than HOLD_UP_TO_IN_FLIGHT requests are in flight, writes pass at once', async (t) => {
    const slow = Array.from({ length: HOLD_UP_TO_IN_FLIGHT + 1 }, (_, i) => send(edge.port, get('/slow', `s${i}`), 'slow done'));
    await delay(50);
    const sent = performance.now();
    await send(edge.port, post('w4', 'four'), 'four');
    const w4 = (up.at.get('w4') ?? 0) - sent;
    t.ok(w4 < HOLD_MS / 2, `${HOLD_UP_TO_IN_FLIGHT + 1} in flight: the write reached uWS at once (${w4.toFixed(0)} ms)`);
    t.equal(edge.stats.heldRequests, 3, 'nothing more held');
    up.releaseSlow();
    await Promise.all(slow);
  });

  await t.test('a held connection keeps its pipelined requests and bodies in order', async (t) => {
    await delay(20); // the slow request's answer is counted
    const got = await send(edge.port, post('p1', 'alpha') + post('p2', 'beta') + post('p3', 'gamma'), 'gamma');
    const bodies = got.split('\r\n\r\n').slice(1).map((part) => part.replace(/HTTP\/1\.1[\s\S]*$/, ''));
    t.same(bodies, ['alpha', 'beta', 'gamma'], 'three answers, in order, bodies intact');
    t.equal(edge.stats.heldRequests, 6, 'the three were held');
  });
});

t.test('close() forwards what is held at once', async (t) => {
  const up = await startUpstream(t);
  const edge = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { path: up.path }, holdMs: 10_000 });
  const answer = send(edge.port, post('c1', 'closing'), 'closing');
  await delay(100);
  t.equal(up.at.has('c1'), false, 'held');
  const closedAt = performance.now();
  await edge.close();
  await answer;
  t.ok((up.at.get('c1') ?? Infinity) - closedAt < 1000, 'forwarded and answered when the edge closed, not after the hold');
});
