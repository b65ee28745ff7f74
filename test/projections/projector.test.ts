// The projector against real chDB, fed by the real engine through a real journal: every fill once, positions
// equal to the engine's balances, redelivery changes nothing, and a failure between inserts is redone
// exactly on restart.

import t from 'tap';
import type { ClickHouseClient } from '@clickhouse/client';
import { Projector, type ProjectorOptions } from '../../projections/projector.js';
import { FEE_ACCOUNT, countFills, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { statementByStatement } from '../support/statementByStatement.js';

async function scalar(ch: ClickHouseClient, query: string): Promise<number> {
  const result = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as Record<string, number>[];
  return Number(Object.values(row ?? {})[0] ?? NaN);
}

t.test('every fill projected once; positions equal the engine balances', async (t) => {
  const session = await loggedSession(sessionFor(101, 500));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 97 });
  await projector.start();
  await projector.catchUp();
  t.equal(projector.position, session.records.length);
  t.equal(projector.lag, 0);
  const fills = countFills(session.records);
  t.ok(fills > 20, `${fills} fills in the log`);
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.fills`), fills, 'count() = fills in the log');
  t.equal(await scalar(ch, `SELECT uniqExact(fill_id) FROM ${db}.fills`), fills, 'uniqExact(fill_id) = fills in the log');
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.fill_sides`), 2 * fills);
  const accepted = session.records.reduce((n, r) => n + r.events.filter((e) => e.type === 'OrderAccepted').length, 0);
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.orders FINAL`), accepted, 'one order row per accepted order');
  const live = await scalar(ch, `SELECT count() FROM ${db}.orders FINAL WHERE status = 'LIVE'`);
  t.equal(live, session.engine.state.live.size(), 'LIVE orders are the engine open orders');

  const result = await ch.query({ query: `SELECT account, token_id, size FROM ${db}.positions FINAL`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const projected = new Map(((await result.json()) as { account: string; token_id: string; size: number }[]).map((r) => [`${r.account} ${r.token_id}`, Number(r.size)]));
  let compared = 0;
  for (const [address, account] of session.engine.state.ledger.accounts) {
    for (const [tokenId, h] of account.holdings) {
      const held = h.free + h.reserved;
      if (held === 0 && !projected.has(`${address} ${tokenId}`)) continue;
      t.equal(projected.get(`${address} ${tokenId}`) ?? 0, held, `position ${address} ${tokenId}`);
      compared += 1;
    }
  }
  t.ok(compared > 8, `${compared} positions compared with the engine`);
});

t.test('every event delivered twice gives identical tables', async (t) => {
  const session = await loggedSession(sessionFor(202, 300));
  const once = await freshDatabase();
  const single = new Projector(once.ch, once.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 50 });
  await single.start();
  await single.deliver(session.records);

  const twice = await freshDatabase();
  const double = new Projector(twice.ch, twice.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 50 });
  await double.start();
  await double.deliver(session.records);
  await double.deliver(session.records);
  await double.deliver(session.records.slice(10, 200));
  t.same(await dumpTables(twice.ch, twice.db), await dumpTables(once.ch, once.db), 'the second delivery changed nothing');
});

t.test('a failure between inserts: a new projector redoes exactly the pending range', async (t) => {
  const session = await loggedSession(sessionFor(303, 300));
  const reference = await freshDatabase();
  const clean = new Projector(reference.ch, reference.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 64 });
  await clean.start();
  await clean.catchUp();

  const target = await freshDatabase();
  // The projector's inserts are statements of one command per commit (storage/bulkInsert.ts). Count the
  // progress records, one per batch (projector.ts): the third is the third batch's "pending"; let that batch's
  // second table insert land, then fail.
  let progressRecords = 0;
  let tableInserts = 0;
  const failing = statementByStatement(target.ch, (statement) => {
    if (!statement.startsWith('INSERT INTO')) return;
    if (statement.includes('.projection_progress ')) progressRecords += 1;
    else if (progressRecords === 3 && ++tableInserts === 2) throw new Error('connection reset after the insert landed (scripted)');
  });
  const crashing = new Projector(failing, target.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 64 });
  await crashing.start();
  await t.rejects(crashing.catchUp(), /scripted/);
  const stuckAt = crashing.position;
  const restarted = new Projector(target.ch, target.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 200 });
  await restarted.start();
  t.ok(restarted.position > stuckAt, `start() redid the pending batch (progress ${stuckAt} → ${restarted.position})`);
  await restarted.catchUp();
  const fills = countFills(session.records);
  t.equal(await scalar(target.ch, `SELECT count() FROM ${target.db}.fills`), fills, 'count() = fills in the log');
  t.equal(await scalar(target.ch, `SELECT uniqExact(fill_id) FROM ${target.db}.fills`), fills);
  t.same(await dumpTables(target.ch, target.db), await dumpTables(reference.ch, reference.db), 'the same tables as a projection that never failed');
});

t.test('waitFor resolves once a position is projected', async (t) => {
  const session = await loggedSession(sessionFor(404, 100));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await projector.start();
  const waiting = projector.waitFor(session.records.length);
  const controller = new AbortController();
  const running = projector.run(controller.signal);
  await waiting;
  t.equal(projector.position, session.records.length);
  controller.abort();
  await running;
  await t.rejects(projector.waitFor(session.records.length + 1, 50), /did not reach position/);
});

t.test('builder codes reach orders and both sides of fills', async (t) => {
  const builderCode = '0x' + '12'.repeat(32);
  const commands = sessionFor(505, 50).map((c, i) => (c.type === 'PlaceOrder' && i % 2 === 0 ? { ...c, builder: builderCode } : c));
  const session = await loggedSession(commands);
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await projector.start();
  await projector.catchUp();
  const expectedOrders = session.records.filter((r) => r.events.some((e) => e.type === 'OrderAccepted' && e.builder === builderCode)).length;
  t.ok(expectedOrders > 0, `${expectedOrders} orders with a builder`);
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.orders FINAL WHERE builder = '${builderCode}'`), expectedOrders);
  const builderFills = session.records.flatMap((r) => r.events).filter((e) => e.type === 'TradeExecuted').length;
  const tagged = await scalar(ch, `SELECT countIf(taker_builder = '${builderCode}' OR maker_builder = '${builderCode}') FROM ${db}.fills`);
  t.ok(builderFills === 0 || tagged > 0, `${tagged} of ${builderFills} fills attributed`);
});

/**
 * A running projector over a journaled session (`crossing` crossing orders after it), `tail` commands of it not yet
 * appended (append() adds them).
 */
async function runningProjector(seed: number, tail: number, options: Pick<ProjectorOptions, 'minIntervalMs' | 'lightLoad' | 'idleMs' | 'lagBudgetMs'>, crossing = 0) {
  const commands = [...sessionFor(seed, 200), ...crossingCommands(crossing)];
  const first = commands.length - tail;
  const session = await loggedSession(commands.slice(0, first));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, ...options });
  await projector.start();
  const controller = new AbortController();
  const running = projector.run(controller.signal);
  await projector.waitFor(first);
  let pos = first;
  /** Appends the next `n` commands; `notify` false leaves the projector to find them itself. */
  const append = async (n: number, notify = true): Promise<void> => {
    const records = commands.slice(pos, pos + n).map((command, i) => ({ pos: pos + 1 + i, command, events: session.engine.apply(command) }));
    pos += n;
    await session.journal.append(records);
    if (notify) projector.notify();
  };
  return { first, projector, append, stop: async (): Promise<void> => { controller.abort(); await running; } };
}

t.test('under light load commits wait on past minIntervalMs until enough records wait; a waiting reader still cuts it short', async (t) => {
  const { first, projector, append, stop } = await runningProjector(406, 30, { minIntervalMs: 20, lightLoad: { intervalMs: 60_000, records: 10 } });
  await append(1);
  // The projector waits on after its last commit (nothing waits); a reader waiting for the record ends that.
  await projector.waitFor(first + 1, 5_000);
  await append(5);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(projector.position, first + 1, 'fewer records than lightLoad.records wait: no commit 300 ms on (minIntervalMs is 20)');
  await append(5);
  const started = Date.now();
  while (projector.position < first + 11 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(projector.position, first + 11, 'ten records waiting end the wait at once');
  await append(2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(projector.position, first + 11, 'two records wait again');
  const waited = Date.now();
  await projector.waitFor(first + 13, 10_000);
  t.ok(Date.now() - waited < 5_000, 'a reader waiting for a position ends the wait');
  await stop();
});

t.test('under light load the wait ends once lightLoad.maxRecords wait, not lightLoad.records', async (t) => {
  const { first, projector, append, stop } = await runningProjector(407, 40, { minIntervalMs: 20, lightLoad: { intervalMs: 60_000, records: 10, maxRecords: 25 } });
  await append(1);
  await projector.waitFor(first + 1, 5_000);
  // Past the least pause (20 ms), with nothing waiting: the load is light.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await append(15);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(projector.position, first + 1, '15 records wait (past records, short of maxRecords): no commit 300 ms on');
  await append(10);
  const started = Date.now();
  while (projector.position < first + 26 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(projector.position, first + 26, 'maxRecords waiting end the wait at once');
  await stop();
});

/**
 * Appends a record every `everyMs` for `forMs` to a running projector and watches its position: the number of
 * commits seen and each record's time from its append to the commit that held it (ms).
 */
async function steadyLoad(seed: number, options: Pick<ProjectorOptions, 'minIntervalMs' | 'lagBudgetMs'>, everyMs: number, forMs: number) {
  const tail = Math.ceil(forMs / everyMs) + 5;
  const { first, projector, append, stop } = await runningProjector(seed, tail, options, tail);
  const appendedAt: number[] = [];
  const waits: number[] = [];
  let commits = 0;
  let seen = projector.position;
  const look = (): void => {
    if (projector.position === seen) return;
    commits += 1;
    for (let pos = seen + 1; pos <= projector.position; pos++) waits.push(performance.now() - (appendedAt[pos - first - 1] ?? NaN));
    seen = projector.position;
  };
  const watch = setInterval(look, 2);
  const started = performance.now();
  while (performance.now() - started < forMs) {
    appendedAt.push(performance.now());
    await append(1);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  await projector.waitFor(first + appendedAt.length, 10_000);
  clearInterval(watch);
  look();
  await stop();
  return { commits, waits, records: appendedAt.length };
}

t.test('under load lagBudgetMs spaces commits further than minIntervalMs and keeps each record within the budget', async (t) => {
  const budget = await steadyLoad(409, { minIntervalMs: 20, lagBudgetMs: 1_000 }, 15, 3_000);
  const alone = await steadyLoad(409, { minIntervalMs: 20 }, 15, 3_000);
  t.ok(budget.commits < alone.commits, `${budget.commits} commits of ${budget.records} records within the budget, ${alone.commits} with minIntervalMs alone`);
  t.ok(budget.commits <= 12, `${budget.commits} commits in 3 s: about one per budget, not one per least interval`);
  t.equal(budget.waits.length, budget.records, 'every record committed, once');
  const longest = Math.max(...budget.waits.filter((ms) => Number.isFinite(ms)));
  // The budget is a target judged from the last commits: a commit slower than those (a machine busy with other
  // tests) spends it by its own overrun; twice the spacing it sets would put records ~2 s out.
  t.ok(longest < 1_000 + 600, `the longest wait from append to commit ${longest.toFixed(0)} ms (budget 1,000)`);
});

t.test('a reader waiting for a position cuts a wait within the lag budget short', async (t) => {
  const { first, projector, append, stop } = await runningProjector(410, 40, { minIntervalMs: 20, lagBudgetMs: 60_000 });
  await append(1);
  await projector.waitFor(first + 1, 5_000);
  await append(30);
  const waited = Date.now();
  await projector.waitFor(first + 31, 10_000);
  t.ok(Date.now() - waited < 5_000, `projected ${Date.now() - waited} ms after the reader asked (budget 60 s)`);
  await stop();
});

t.test('a reader waiting for a position wakes an idle run() at once, whatever idleMs', async (t) => {
  const { first, projector, append, stop } = await runningProjector(408, 5, { idleMs: 60_000 });
  // run() is idle now, looking again only after idleMs; nothing notifies it of the records below.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await append(5, false);
  const waited = Date.now();
  await projector.waitFor(first + 5, 10_000);
  t.ok(Date.now() - waited < 5_000, `the reader's position was projected ${Date.now() - waited} ms after it asked`);
  await stop();
});

t.test('minIntervalMs spaces commits while the log grows; a reader waiting for a position cuts the pause short', async (t) => {
  const commands = sessionFor(405, 200);
  const first = commands.length - 20;
  t.ok(first > 20, 'a long enough session');
  const session = await loggedSession(commands.slice(0, first));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, minIntervalMs: 60_000 });
  await projector.start();
  const controller = new AbortController();
  const running = projector.run(controller.signal);
  await projector.waitFor(first);
  const later = commands.slice(first).map((command, i) => ({ pos: first + 1 + i, command, events: session.engine.apply(command) }));
  await session.journal.append(later);
  projector.notify();
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(projector.position, first, 'no commit during the pause, though the log grew');
  const started = Date.now();
  await projector.waitFor(commands.length, 10_000);
  t.ok(Date.now() - started < 5_000, 'the waiting reader ended the pause');
  t.equal(projector.position, commands.length);
  controller.abort();
  await running;
});
