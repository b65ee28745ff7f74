// The whole service as `npm start` runs it: every surface on one port, the OpenAPI document generated from
// the route schemas, metrics, rate limits on by configuration, and a graceful shutdown after which a restart
// on the same data directory recovers the same engine state.

import t from 'tap';
import { startTestService } from '../support/serviceFixture.js';
import { clearOfTimedCommands } from '../support/timedCommands.js';

const USDC = 1_000_000;

t.test('one port serves every surface, the OpenAPI document and metrics', async (t) => {
  const { baseUrl, close, service } = await startTestService();
  t.teardown(close);
  const health = await fetch(`${baseUrl}/health`);
  t.same(await health.json(), { status: 'ok', uwsNative: true });
  for (const path of ['/catalog/markets?limit=2', '/clob/markets', '/clob/ok', '/activity/trades', '/markets?limit=2', '/markets?next_cursor=MA==']) {
    t.equal((await fetch(baseUrl + path)).status, 200, path);
  }
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  t.equal(doc.openapi, '3.1.0');
  for (const path of ['/catalog/markets', '/catalog/public-search', '/clob/book', '/clob/books', '/clob/markets/{id}', '/activity/positions', '/activity/holders', '/metrics']) {
    t.ok(doc.paths[path] !== undefined, `the document describes ${path}`);
  }
  const positions = doc.paths['/activity/positions']?.get as { parameters: { name: string; required: boolean }[] };
  t.ok(positions.parameters.some((p) => p.name === 'user' && p.required), 'query parameters come from the route schema');
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  t.match(metrics, /http_requests_total\{surface="clob",route="GET \/markets",status="200"\} 2/, "counted per route, whichever mount served it");
  t.match(metrics, /projection_lag_records \d+/);
  t.match(metrics, /engine_log_position \d+/);
  const gauge = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
  t.equal(gauge('engine_open_orders'), service.engine.engine.openOrderCount, "the engine's open orders");
  t.ok(gauge('clickhouse_memory_tracked_bytes') > 0, "ClickHouse's tracked memory, read from system.metrics when scraped");
  t.ok(gauge('clickhouse_allocator_resident_bytes') >= gauge('clickhouse_memory_tracked_bytes') / 2, "ClickHouse's allocator's resident memory, from system.jemalloc_stats");
  t.equal(gauge('nodejs_heap_trim_collections'), 0, 'no light-load collections: this process runs without --expose-gc (threads/heapTrim.ts)');
  const threadHeaps = Object.fromEntries([...metrics.matchAll(/^nodejs_thread_heap_total_bytes\{thread="([^"]+)"\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
  for (const thread of ['pmx-projector', 'pmx-snapshots', 'pmx-edge']) t.ok((threadHeaps[thread] ?? 0) > 1_000_000, `the ${thread} thread's committed JS heap`);
  // The demo catalog's markets were listed through the engine: durable batches, offered to each consumer once.
  t.match(metrics, /^durable_batches_total [1-9]\d*$/m, 'durable batches went through the one follower');
  for (const consumer of ['projector', 'read model', 'WebSocket publisher']) {
    t.match(metrics, new RegExp(`^durable_consumer_seconds_total\\{consumer="${consumer}"\\} [0-9.e-]+$`, 'm'), `the ${consumer}'s time on the follower is counted`);
  }
  // Those appends went through the journal's writer thread, whose answers an AnswerWatch reads.
  const armed = Number(/^thread_waits_armed_total\{watch="journal"\} (\d+)$/m.exec(metrics)?.[1]);
  const woken = Number(/^thread_waits_woken_total\{watch="journal"\} (\d+)$/m.exec(metrics)?.[1]);
  t.ok(armed > 0, `the journal's answer waits are counted (${armed} armed)`);
  t.ok(armed - woken >= 0 && armed - woken <= 1, `and at most one is outstanding (${armed - woken})`);
  t.match(metrics, /^thread_wait_fallback_settles_total\{watch="journal"\} \d+$/m, 'the fallback reads that settled a write are counted');
});

t.test('rate limits are enforced when configured', async (t) => {
  const { baseUrl, close } = await startTestService({ rateLimit: true });
  t.teardown(close);
  const statuses: number[] = [];
  for (let i = 0; i < 55; i++) statuses.push((await fetch(`${baseUrl}/clob/`)).status);
  t.equal(statuses.filter((s) => s === 200).length, 50, 'GET / allows 50 per 10 s (spec 8.2)');
  const limited = await fetch(`${baseUrl}/clob/`);
  t.equal(limited.status, 429);
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
  t.same(await limited.json(), { error: 'Too Many Requests' });
});

t.test('graceful shutdown keeps every acknowledged command; a restart recovers the same state', async (t) => {
  const first = await startTestService();
  const host = first.service.engine;
  const account = '0x' + 'a'.repeat(40);
  await host.submit({ type: 'Deposit', account, amount: 25 * USDC });
  // No AdvanceTime of the host's may fall between the hash and the restarted state.
  await clearOfTimedCommands(host, 20_000);
  const hash = host.engine.stateHash();
  const position = host.position;
  const dataDir = first.service.config.dataDir;
  const db = first.service.config.clickhouseDatabase;
  await first.close();
  t.equal(first.service.projector.position, position, 'the projector caught up before the log closed');

  const second = await startTestService({ dataDir, clickhouseDatabase: db });
  t.teardown(second.close);
  t.equal(second.service.engine.engine.stateHash(), hash, 'the engine state is the same after restart');
  t.equal(second.service.engine.position, position);
});
