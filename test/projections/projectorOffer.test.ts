// Records handed to the projector in memory (Projector.offer()) are indistinguishable from the ones it reads
// back from the journal: the real engine host on a real journal, a projector fed by its durable batches (some
// hand-overs skipped, so that gaps send it back to the journal, and a small bound; records built as they are
// offered between passes, or held and built by the next pass) and a projector reading the journal, into real
// chDB, in the same batches: the same rows sent, byte for byte, and the same tables.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ClickHouseClient } from '@clickhouse/client';
import { Engine } from '../../engine/index.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { Projector } from '../../projections/projector.js';
import { FEE_ACCOUNT, countFills, crossingCommands, dumpTables, freshDatabase, sessionFor, notingInserts } from '../support/projectionFixtures.js';

async function latestPrices(ch: ClickHouseClient, db: string): Promise<unknown> {
  const result = await ch.query({ query: `SELECT token_id, argMaxMerge(latest) AS l FROM ${db}.latest_prices GROUP BY token_id ORDER BY token_id`, format: 'JSONEachRow' });
  return result.json();
}

t.test('a projector fed in memory writes exactly what one reading the journal writes', async (t) => {
  const commands = [...sessionFor(707, 500), ...crossingCommands(200)];
  const times = commands.map((c) => c.time);
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'proj-offer-')), segmentBytes: 8 << 20 });
  const memory = await freshDatabase();
  const sentFromMemory: string[] = [];
  const batches: number[] = [];
  const fed = new Projector(notingInserts(memory.ch, memory.db, sentFromMemory), memory.db, journal, { feeAccount: FEE_ACCOUNT, maxOffered: 64, onBatch: (_from, to) => batches.push(to) });
  await fed.start();

  const durable: LogRecord[] = [];
  let turns = 0;
  let clock = 0;
  const host = new EngineHost(new Engine(), journal, {
    maxBatch: 16,
    clock: () => times[clock++] as number,
    onDurable: (records) => {
      durable.push(...records);
      // Every seventh batch is not handed over: the next one leaves a gap, filled from the journal.
      if (++turns % 7 === 3) fed.notify();
      else fed.offer(records);
    },
  });
  const controller = new AbortController();
  const running = fed.run(controller.signal);
  // Submitted in steps of three host batches; the projector catches up after most steps, but every fourth
  // step runs on into the next one (past the bound of 64 held records, whose oldest are then read from the journal).
  const submissions = commands.map(({ time: _time, ...rest }) => rest as Submission);
  for (let i = 0, step = 0; i < submissions.length; i += 40, step++) {
    await Promise.all(submissions.slice(i, i + 40).map((s) => host.submit(s)));
    if (step % 4 !== 3) await fed.waitFor(host.position);
  }
  await host.idle();
  await fed.waitFor(host.position);
  controller.abort();
  await running;

  const total = host.position;
  t.equal(total, commands.length);
  t.ok(countFills(durable) > 50, `${countFills(durable)} fills`);
  t.ok(fed.handedOver > total / 2 && fed.handedOver < total, `${fed.handedOver} of ${total} records projected from memory, the rest read from the journal`);
  t.ok(fed.builtAsOffered > 0 && fed.builtAsOffered < fed.handedOver, `${fed.builtAsOffered} of them built as they were offered, between passes, the others by a pass`);
  t.ok(batches.length > 5, `${batches.length} batches`);
  // What makes a handed-over record equal to its log copy for every reader: its events are their own JSON
  // round trip (no undefined properties, no -0, no class instances), and they were not changed after the hand-over.
  const changed = durable.filter((r) => !isDeepStrictEqual(JSON.parse(JSON.stringify(r.events)), r.events));
  t.same(changed.map((r) => r.pos), [], 'every handed-over record equals its JSON round trip');
  const logged: LogRecord[] = [];
  for await (const r of journal.read(1)) logged.push(r);
  t.ok(isDeepStrictEqual(logged.map((r) => r.events), durable.map((r) => r.events)), 'and equals what the journal holds');

  const fromLog = await freshDatabase();
  const sentFromLog: string[] = [];
  const reader = new Projector(notingInserts(fromLog.ch, fromLog.db, sentFromLog), fromLog.db, journal, { feeAccount: FEE_ACCOUNT, maxBatch: 1_000_000 });
  await reader.start();
  for (const to of batches) await reader.catchUpTo(journal, to);
  t.equal(reader.handedOver, 0);
  t.equal(reader.position, total);

  t.equal(sentFromLog.length, sentFromMemory.length, `${sentFromMemory.length} table inserts each`);
  t.ok(isDeepStrictEqual(sentFromMemory, sentFromLog), 'the same rows sent, byte for byte, in the same inserts');
  t.same(await dumpTables(memory.ch, memory.db), await dumpTables(fromLog.ch, fromLog.db), 'the same tables');
  t.same(await latestPrices(memory.ch, memory.db), await latestPrices(fromLog.ch, fromLog.db), 'the same latest prices');
  await journal.close();
});
