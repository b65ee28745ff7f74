// A maker's rewards earned on a UTC day, by market (base units): the day under way from the engine (the day's
// pool so far split as it would be paid now, engine/rewards/rewardQueries.ts), a day that has ended from the
// `reward_earnings` projection (every amount of the day's split, paid or, under $1, withheld), read once the
// projector holds every command this process acknowledged. A day after the engine's is empty.

import { dayOf } from '../../engine/index.js';
import { select } from '../../projections/readModel/context.js';
import { projectionsCaughtUp } from '../trading/readYourWrites.js';
import type { TradingDeps } from '../trading/tradingDeps.js';

export async function earningsOn(deps: TradingDeps, account: string, day: number): Promise<Map<string, number>> {
  const engine = deps.host.engine;
  const today = dayOf(engine.now);
  if (day > today) return new Map();
  const soFar = engine.rewardEarningsSoFar(account);
  if (soFar !== undefined && soFar.day === day) return soFar.byMarket;
  if (day === today) return new Map();
  await projectionsCaughtUp(deps);
  const rows = await select<{ condition_id: string; amount: number }>(
    deps.reads,
    `SELECT condition_id, sum(amount) AS amount FROM ${deps.reads.db}.reward_earnings
      WHERE account = {account:String} AND day = {day:Date} GROUP BY condition_id ORDER BY condition_id`,
    { account, day: new Date(day * 86_400_000).toISOString().slice(0, 10) },
  );
  return new Map(rows.filter((r) => Number(r.amount) > 0).map((r) => [r.condition_id, Number(r.amount)]));
}
