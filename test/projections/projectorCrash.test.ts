// A projector killed with SIGKILL at random points mid-projection, restarted each time: at the end the
// fills table holds each fill of the log exactly once (count() = uniqExact(fill_id) = fills in the log),
// positions equal the engine's balances, and every table equals a projection that never crashed.
// PMX_CRASH_RUNS sets the number of kills.

import t from 'tap';
import { fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal } from '../../log/journal/journal.js';
import { openClickHouse } from '../../storage/clickhouse.js';
import { Projector } from '../../projections/projector.js';
import { FEE_ACCOUNT, countFills, crossingCommands, dumpTables, loggedSession, sessionFor } from '../support/projectionFixtures.js';

const RUNS = Number(process.env.PMX_CRASH_RUNS ?? 4);
const CHILD = fileURLToPath(new URL('../support/projectorChild.ts', import.meta.url));

t.test(`SIGKILL the projector ${RUNS} times mid-projection: every fill exactly once`, async (t) => {
  // A varied session, then 300 crossing orders (buys of each outcome that mint against each other).
  const base = sessionFor(9001, 600);
  const crossing = crossingCommands(300);
  const commands = [...base, ...crossing];
  const session = await loggedSession(commands);
  await session.journal.close();
  const dataDir = mkdtempSync(join(tmpdir(), 'proj-crash-'));
  const total = session.records.length;
  let killedAt = 0;
  for (let run = 0; run < RUNS; run++) {
    const child = fork(CHILD, [session.dir, dataDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const batchesBeforeKill = 2 + Math.floor(Math.random() * 6);
    let batches = 0;
    const outcome = await new Promise<string>((resolve) => {
      child.on('message', (m: { kind: string; to?: number; pos?: number }) => {
        if (m.kind === 'batch') {
          batches += 1;
          killedAt = m.to ?? killedAt;
          // Kill right after a batch was announced, while the next one is being inserted.
          if (batches === batchesBeforeKill) setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 15));
        }
      });
      child.on('exit', (code, signal) => resolve(signal ?? (code === 0 ? 'finished' : `exit ${code}`)));
    });
    t.ok(true, `run ${run + 1}: ${outcome} after ${batches} batches (last announced position ${killedAt} of ${total})`);
    if (outcome === 'finished') break;
  }

  const journal = await Journal.open({ dir: session.dir, segmentBytes: 8 << 20 });
  const ch = await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'exchange' });
  // The child's batch size: batches start after the recorded progress, so the ranges are the child's too.
  const projector = new Projector(ch, 'exchange', journal, { feeAccount: FEE_ACCOUNT, maxBatch: 23 });
  await projector.start();
  await projector.catchUp();
  t.equal(projector.position, total);
  const result = await ch.query({
    query: 'SELECT count() AS n, uniqExact(fill_id) AS u FROM exchange.fills',
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  const [row] = (await result.json()) as { n: number; u: number }[];
  const fills = countFills(session.records);
  t.equal(Number(row?.n), fills, `count() = ${fills} fills in the log`);
  t.equal(Number(row?.u), fills, 'uniqExact(fill_id) = fills in the log');
  // Rows ClickHouse derives from fills (materialized views) are exactly once too.
  const derived = await ch.query({
    query: "SELECT (SELECT count() FROM exchange.fill_sides) AS sides, (SELECT countIf(kind = 'fill') FROM exchange.order_events) AS events",
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  const [d] = (await derived.json()) as { sides: number; events: number }[];
  t.equal(Number(d?.sides), 2 * fills, 'fill_sides: two rows per fill');
  t.equal(Number(d?.events), 2 * fills, "order_events: two 'fill' rows per fill");
  const positions = await ch.query({ query: 'SELECT account, token_id, size FROM exchange.positions FINAL', format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const projected = new Map(((await positions.json()) as { account: string; token_id: string; size: number }[]).map((r) => [`${r.account} ${r.token_id}`, Number(r.size)]));
  for (const [address, account] of session.engine.state.ledger.accounts) {
    for (const [tokenId, h] of account.holdings) {
      if (h.free + h.reserved === 0 && !projected.has(`${address} ${tokenId}`)) continue;
      t.equal(projected.get(`${address} ${tokenId}`) ?? 0, h.free + h.reserved, `position ${address} ${tokenId}`);
    }
  }
  // Every table, row for row, as a projection of the same log that never crashed.
  await ch.command({ query: 'CREATE DATABASE IF NOT EXISTS reference' });
  const clean = new Projector(ch, 'reference', journal, { feeAccount: FEE_ACCOUNT, maxBatch: 23 });
  await clean.start();
  await clean.catchUp();
  t.same(await dumpTables(ch, 'exchange'), await dumpTables(ch, 'reference'), 'every table as a projection that never crashed');
  await journal.close();
});
