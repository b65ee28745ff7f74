// The header edge on its own thread (api/http/edgeThread.ts) behaves as the in-thread edge: it relays with
// header names rewritten and the client IP added, its counters reach the starting thread, a port in use
// fails the start, and close() stops the port. (The edge itself is tested in headerEdge.test.ts.)

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import t from 'tap';
import { startHeaderEdgeThread } from '../../api/http/edgeThread.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-thread-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'up.sock');
const seen: IncomingHttpHeaders[] = [];
const upstream = createServer((req, res) => {
  seen.push(req.headers);
  res.end(JSON.stringify({ path: req.url }));
});
await new Promise<void>((resolve) => upstream.listen(path, resolve));
t.teardown(() => upstream.close());

const failures: Error[] = [];
const edge = await startHeaderEdgeThread({ host: '127.0.0.1', port: 0, upstream: { path } }, (error) => failures.push(error));

t.test('relays through the thread, with the head rewritten', async (t) => {
  const res = await fetch(`http://127.0.0.1:${edge.port}/x?y=1`, { headers: { POLY_API_KEY: 'k', 'x-pmx-client-ip': '6.6.6.6' } });
  t.equal(res.status, 200);
  t.same(await res.json(), { path: '/x?y=1' });
  const headers = seen.at(-1) ?? {};
  t.equal(headers['poly-api-key'], 'k', '`_` became `-`');
  t.equal(headers['x-pmx-client-ip'], '127.0.0.1', "the client's own IP header is replaced");
});

t.test('counters reach the starting thread', async (t) => {
  const deadline = Date.now() + 2000;
  while (edge.stats.underscoreHeads < 1 && Date.now() < deadline) await delay(20);
  t.ok(edge.stats.requests >= 1);
  t.equal(edge.stats.underscoreHeads, 1);
  t.equal(edge.stats.internalErrors, 0);
});

t.test('a port in use fails the start', async (t) => {
  const holder = createTcpServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  const taken = typeof address === 'object' && address !== null ? address.port : 0;
  await t.rejects(startHeaderEdgeThread({ host: '127.0.0.1', port: taken, upstream: { path } }, () => {}), { code: 'EADDRINUSE' });
  holder.close();
});

t.test('close() stops the port; exact counters after it; no failure reported', async (t) => {
  await edge.close();
  await edge.close();
  t.equal(edge.stats.connectionsOpen, 0);
  const refused = await new Promise<boolean>((resolve) => {
    const socket = connect(edge.port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
  t.ok(refused, 'nothing listens after close');
  t.same(failures, []);
});
