// The catalog's liquidity rewards handed to the engine (catalog/handoff/rewardsHandOff.ts): a market naming a
// pool gets the engine program of its terms, once (again only when the catalog's terms change); closed,
// unknown and resolved markets and markets without a pool are left alone, and nothing ends an operator's program.

import t from 'tap';
import { Engine, type Command, type EngineEvent } from '../../engine/index.js';
import { handOffRewards, rewardTermsOf } from '../../catalog/handoff/rewardsHandOff.js';
import type { HandOffCommand } from '../../catalog/handoff/handOffMarkets.js';
import { buildDemoCatalog } from '../../catalog/demo/buildDemoCatalog.js';
import { DEMO_REWARDS } from '../../catalog/demo/demoDefinitions.js';

const CID = (n: number): string => `0x${String(n).repeat(64).slice(0, 64)}`;

function setup(): { engine: Engine; sink: { submit(c: HandOffCommand): Promise<readonly EngineEvent[]> }; sent: HandOffCommand[] } {
  const engine = new Engine();
  let time = 1_700_000_000_000;
  for (const n of [1, 2, 3]) engine.apply({ type: 'ListMarket', time, conditionId: CID(n), tokenIds: [`${n}1`, `${n}2`], tickSize: 10_000, minSize: 5_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  engine.apply({ type: 'ResolveMarket', time, conditionId: CID(3), winningOutcome: 0 });
  const sent: HandOffCommand[] = [];
  const sink = { submit: async (c: HandOffCommand) => { sent.push(c); return engine.apply({ ...c, time: (time += 1) } as Command); } };
  return { engine, sink, sent };
}

const pool = (cid: string, rate: number, extra: Record<string, unknown> = {}) => ({ conditionId: cid, rewardsMinSize: 50, rewardsMaxSpread: 4.5, clobRewards: [{ rewardsDailyRate: rate }], ...extra });

t.test('a pool becomes the engine program, once', async (t) => {
  const { engine, sink, sent } = setup();
  const markets = [pool(CID(1), 100), pool(CID(2), 0), pool(CID(3), 10), pool(CID(4), 10), pool(CID(2), 5, { closed: true }), { conditionId: CID(2) }];
  t.same(await handOffRewards(sink, engine, markets), { set: 1, rejected: [] });
  t.match(engine.rewardTerms().get(CID(1)), { dailyRate: 100_000_000, maxSpread: 45_000, minSize: 50_000_000 });
  t.equal(engine.rewardTerms().size, 1, 'no pool, a closed, a resolved and an unknown market: nothing');
  t.same(await handOffRewards(sink, engine, markets), { set: 0, rejected: [] }, 'again: nothing to do');
  t.same((await handOffRewards(sink, engine, [pool(CID(1), 150)])).set, 1, 'the catalog changed its pool');
  t.equal(engine.rewardTerms().get(CID(1))?.dailyRate, 150_000_000);
  engine.apply({ type: 'SetMarketRewards', time: 1_800_000_000_000, conditionId: CID(2), dailyRate: 1, maxSpread: 10_000, minSize: 0 });
  await handOffRewards(sink, engine, markets);
  t.ok(engine.rewardTerms().has(CID(2)), "the operator's program on a market without a pool stays");
  t.equal(engine.rewardTerms().get(CID(1))?.dailyRate, 100_000_000, "the catalog's terms again where it names a pool");
  t.equal(sent.length, 3);
});

t.test('the demo catalog rewards the markets DEMO_REWARDS names', async (t) => {
  const rewarded = buildDemoCatalog().markets.map((m) => rewardTermsOf(m)).filter((x) => x !== undefined);
  t.equal(rewarded.length, Object.keys(DEMO_REWARDS).length);
  t.ok(rewarded.every((r) => r.maxSpread === 45_000 && r.minSize === 50_000_000));
  t.same(rewarded.map((r) => r.dailyRate / 1e6).sort((a, b) => a - b), Object.values(DEMO_REWARDS).sort((a, b) => a - b));
});
