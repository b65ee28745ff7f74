// The demo catalog's liquidity rewards on a fresh service: the markets it gives a pool are the engine's
// programs (the catalog hand-off), GET /rewards/markets/current lists them, and once a minute of engine time
// passes the demo maker's ladder has scored and earns in each of them. The engine's clock is set off the wall
// clock by under 15 s ahead or 45 s behind (signed requests stay fresh at the engine) so that its first
// minute comes 15 s after the start.

import t from 'tap';
import { pino } from 'pino';
import { DEMO_REWARDS } from '../../catalog/demo/demoDefinitions.js';
import { demoConditionId } from '../../catalog/demo/buildDemoCatalog.js';
import { startService } from '../../server/service.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';

const toNextMinute = 60_000 - (Date.now() % 60_000);
const ahead = toNextMinute - 15_000;
const offset = ahead > 15_000 ? ahead - 60_000 : ahead;

t.test('the demo maker earns the demo pools', async (t) => {
  const { ch, db } = await freshDatabase();
  const config = testConfig({ clickhouseDatabase: db, demoTraders: true, demoTraderCycleMs: 150 });
  const svc = await startService(config, pino({ level: 'silent' }), { clickhouse: ch, engineClock: () => Date.now() + offset });
  t.teardown(() => svc.close());
  const engine = svc.engine.engine;
  const rewarded = Object.keys(DEMO_REWARDS).map(demoConditionId).sort();
  t.same([...engine.rewardTerms().keys()].sort(), rewarded, 'the catalog hand-off set the demo programs');
  const current = (await (await fetch(`http://127.0.0.1:${svc.port}/clob/rewards/markets/current`)).json()) as { data: { condition_id: string; total_daily_rate: number }[] };
  t.same(current.data.map((d) => d.condition_id), rewarded);

  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline && !rewarded.every((cid) => (engine.rewardDaySoFar(cid)?.earnings.size ?? 0) > 0)) await new Promise((resolve) => setTimeout(resolve, 250));
  for (const cid of rewarded) {
    const day = engine.rewardDaySoFar(cid);
    const [maker, earned] = [...(day?.earnings ?? [])][0] ?? ['', 0];
    t.ok(earned > 0 && engine.openOrders(maker).some((o) => o.market.conditionId === cid), `${cid.slice(0, 10)}…: the demo maker earned ${earned / 1e6} USDC of ${(day?.pool ?? 0) / 1e6} so far`);
  }
});
