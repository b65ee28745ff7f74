// GET /markets/live-activity/{condition_id} (the official V2 client's getMarketTradesEvents): a market's most
// recent fills, newest first, in upstream's MarketTradeEvent shape, from the `fills` table (ordered by
// condition id, time and fill id: the newest of one market are the end of one range).
//
// Each fill is shown from its taker's side, as the activity surface's /trades shows it by default: the
// taker's address, token, side, price, fee rate and outcome. Profiles do not exist here: the user's
// username, pictures and pseudonym are ''. `timestamp` is the fill's time in Unix seconds, as a string;
// `transaction_hash` the fill's stable hash (wire.ts); `event_type` is `trade`.

import { select, type ReadContext } from './context.js';
import { FALLBACK_METADATA } from './metadata.js';
import { toDecimal, transactionHashOf } from './wire.js';

/** Most events one answer holds. */
export const MARKET_TRADE_EVENTS_LIMIT = 100;

export interface MarketTradeEvent {
  event_type: 'trade';
  market: { condition_id: string; asset_id: string; question: string; icon: string; slug: string };
  user: { address: string; username: string; profile_picture: string; optimized_profile_picture: string; pseudonym: string };
  side: 'BUY' | 'SELL';
  size: string;
  fee_rate_bps: string;
  price: string;
  outcome: string;
  outcome_index: number;
  transaction_hash: string;
  timestamp: string;
}

interface TakerRow {
  readonly fill_id: string;
  readonly time_ms: number;
  readonly size: number;
  readonly taker_account: string;
  readonly taker_token_id: string;
  readonly taker_outcome: number;
  readonly taker_side: 'BUY' | 'SELL';
  readonly taker_price: number;
  readonly taker_fee_bps: number;
}

/** The newest fills of `conditionId` (lower case), newest first, at most MARKET_TRADE_EVENTS_LIMIT. */
export async function marketTradeEvents(ctx: ReadContext, conditionId: string): Promise<MarketTradeEvent[]> {
  const rows = await select<TakerRow>(
    ctx,
    `SELECT fill_id, toUnixTimestamp64Milli(time) AS time_ms, size, taker_account, taker_token_id, taker_outcome, taker_side, taker_price, taker_fee_bps
       FROM ${ctx.db}.fills WHERE condition_id = {market:String}
      ORDER BY time DESC, fill_id DESC LIMIT {limit:UInt32}`,
    { market: conditionId, limit: MARKET_TRADE_EVENTS_LIMIT },
  );
  if (rows.length === 0) return [];
  const m = (await ctx.metadata([conditionId])).get(conditionId) ?? FALLBACK_METADATA;
  return rows.map((r) => {
    const outcome = Number(r.taker_outcome) === 1 ? 1 : 0;
    return {
      event_type: 'trade',
      market: { condition_id: conditionId, asset_id: r.taker_token_id, question: m.title, icon: m.icon, slug: m.slug },
      user: { address: r.taker_account, username: '', profile_picture: '', optimized_profile_picture: '', pseudonym: '' },
      side: r.taker_side,
      size: toDecimal(Number(r.size)),
      fee_rate_bps: String(r.taker_fee_bps),
      price: toDecimal(Number(r.taker_price)),
      outcome: m.outcomes[outcome],
      outcome_index: outcome,
      transaction_hash: transactionHashOf(r.fill_id),
      timestamp: String(Math.floor(Number(r.time_ms) / 1000)),
    };
  });
}
