// The projector over sessions with a neg-risk event (the model tests' 'negRisk' variant: conversions mixed
// with trading, splits, merges, resolutions and redemptions): positions equal the engine's balances, every
// conversion is one `ledger_events` row of kind 'convert', and the same records delivered twice give the
// same tables.

import t from 'tap';
import fc from 'fast-check';
import type { ClickHouseClient } from '@clickhouse/client';
import { Projector } from '../../projections/projector.js';
import { genesis, opsArb, toCommands } from '../engine/modelCommands.js';
import { FEE_ACCOUNT, dumpTables, freshDatabase, loggedSession } from '../support/projectionFixtures.js';

function negRiskSession(seed: number, length = 300): ReturnType<typeof genesis> {
  const [ops] = fc.sample(opsArb(length, 'negRisk'), { seed, numRuns: 1 });
  return [...genesis('negRisk'), ...toCommands(ops ?? [])];
}

async function rows<R>(ch: ClickHouseClient, query: string): Promise<R[]> {
  const result = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  return (await result.json()) as R[];
}

t.test('positions equal the engine balances; one convert row per conversion', async (t) => {
  const session = await loggedSession(negRiskSession(36));
  const conversions = session.records.flatMap((r) => r.events).filter((e) => e.type === 'PositionsConverted');
  t.ok(conversions.length >= 3, `${conversions.length} conversions in the session`);
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 53 });
  await projector.start();
  await projector.catchUp();

  const projected = new Map((await rows<{ account: string; token_id: string; size: number }>(ch, `SELECT account, token_id, size FROM ${db}.positions FINAL`)).map((r) => [`${r.account} ${r.token_id}`, Number(r.size)]));
  let compared = 0;
  for (const [address, account] of session.engine.state.ledger.accounts) {
    for (const [tokenId, h] of account.holdings) {
      const held = h.free + h.reserved;
      if (held === 0 && !projected.has(`${address} ${tokenId}`)) continue;
      t.equal(projected.get(`${address} ${tokenId}`) ?? 0, held, `position ${address} ${tokenId}`);
      compared += 1;
    }
  }
  t.ok(compared > 20, `${compared} positions compared with the engine`);

  const converts = await rows<{ seq: number; account: string; condition_id: string; amount: number; payout: number }>(ch, `SELECT seq, account, condition_id, amount, payout FROM ${db}.ledger_events WHERE kind = 'convert' ORDER BY seq`);
  t.same(
    converts.map((r) => [Number(r.seq), r.account, r.condition_id, Number(r.amount), Number(r.payout)]),
    conversions.map((e) => (e.type === 'PositionsConverted' ? [e.seq, e.account, e.noConditionIds[0], e.amount, e.payout] : [])),
    'each conversion: its first question, the NO given of each question, the collateral received',
  );
});

t.test('every record delivered twice gives identical tables', async (t) => {
  const session = await loggedSession(negRiskSession(72, 250));
  const once = await freshDatabase();
  const single = new Projector(once.ch, once.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await single.start();
  await single.deliver(session.records);
  const twice = await freshDatabase();
  const double = new Projector(twice.ch, twice.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await double.start();
  await double.deliver(session.records);
  await double.deliver(session.records);
  t.same(await dumpTables(twice.ch, twice.db), await dumpTables(once.ch, once.db), 'the second delivery changed nothing');
});
