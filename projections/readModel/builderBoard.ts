// GET /v1/builders/leaderboard and GET /v1/builders/volume: builders (the builder codes orders carried) ranked
// by the volume they brought over a period, and that volume day by day. ClickHouse's, from `fills`.
//
//   volume        Σ of the collateral of the fill sides whose order carried the builder's code (a fill whose
//                 two orders carried codes counts for each: each brought its side)
//   activeUsers   distinct accounts of those sides
//   rank          place by volume descending, then code ascending, from 1 (per day in the time series)
//   builder       the code: no builder profiles exist here (builderLogo '', verified false)
//   dt            the UTC day, `YYYY-MM-DDT00:00:00Z`; DAY, WEEK, MONTH: the days of the last 1, 7, 30 days
//                 (today's partial day included); ALL: every day with such a fill

import { intIn, oneOf } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { PERIOD_MS, TIME_PERIODS } from './leaderboard.js';
import { toFloat } from './wire.js';

export const BUILDERS_DEFAULT_LIMIT = 25;
export const BUILDERS_MAX_LIMIT = 50;
export const BUILDERS_MAX_OFFSET = 1_000;

export interface BuilderEntry {
  rank: string;
  builder: string;
  builderCode: string;
  volume: number;
  activeUsers: number;
  verified: boolean;
  builderLogo: string;
}

export interface BuilderVolumeEntry extends BuilderEntry {
  dt: string;
}

/** The fill sides that carried a builder code, as (time, builder, account, amount). */
const SIDES = (db: string, where: string): string => `
  SELECT time, s.1 AS builder, s.2 AS account, s.3 AS amount FROM ${db}.fills
   ARRAY JOIN [(taker_builder, taker_account, taker_amount), (maker_builder, maker_account, maker_amount)] AS s
   WHERE s.1 != ''${where}`;

function startOf(ctx: ReadContext, period: string | undefined): { period: (typeof TIME_PERIODS)[number]; startMs: number | undefined } {
  const p = oneOf('timePeriod', period, TIME_PERIODS, 'DAY');
  const ms = PERIOD_MS[p];
  return { period: p, startMs: ms === undefined ? undefined : ctx.now() - ms };
}

const builderEntry = (rank: number, r: { builder: string; volume: number; users: number }): BuilderEntry => ({
  rank: String(rank), builder: r.builder, builderCode: r.builder, volume: toFloat(Number(r.volume)), activeUsers: Number(r.users), verified: false, builderLogo: '',
});

export async function builderLeaderboard(ctx: ReadContext, params: { readonly timePeriod?: string; readonly limit?: number; readonly offset?: number }): Promise<BuilderEntry[]> {
  const { startMs } = startOf(ctx, params.timePeriod);
  const limit = intIn('limit', params.limit, BUILDERS_DEFAULT_LIMIT, 0, BUILDERS_MAX_LIMIT);
  const offset = intIn('offset', params.offset, 0, 0, BUILDERS_MAX_OFFSET);
  if (limit === 0) return [];
  const rows = await select<{ builder: string; volume: number; users: number }>(
    ctx,
    `SELECT builder, sum(amount) AS volume, uniqExact(account) AS users FROM (${SIDES(ctx.db, startMs === undefined ? '' : ' AND time >= fromUnixTimestamp64Milli({start:Int64})')})
      GROUP BY builder ORDER BY volume DESC, builder LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    { start: startMs ?? 0, limit, offset },
  );
  return rows.map((r, i) => builderEntry(offset + i + 1, r));
}

export async function builderVolume(ctx: ReadContext, params: { readonly timePeriod?: string }): Promise<BuilderVolumeEntry[]> {
  const { startMs } = startOf(ctx, params.timePeriod);
  const rows = await select<{ day: string; builder: string; volume: number; users: number }>(
    ctx,
    `SELECT toString(toDate(time)) AS day, builder, sum(amount) AS volume, uniqExact(account) AS users
       FROM (${SIDES(ctx.db, startMs === undefined ? '' : " AND toDate(time) >= toDate(fromUnixTimestamp64Milli({start:Int64}, 'UTC'))")})
      GROUP BY day, builder ORDER BY day, volume DESC, builder`,
    { start: startMs ?? 0 },
  );
  const out: BuilderVolumeEntry[] = [];
  let day = '';
  let rank = 0;
  for (const r of rows) {
    rank = r.day === day ? rank + 1 : 1;
    day = r.day;
    out.push({ dt: `${r.day}T00:00:00Z`, ...builderEntry(rank, r) });
  }
  return out;
}
