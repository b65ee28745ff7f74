// Snapshots of the in-memory read model, for processes that keep it without the projector beside them (the
// `api` role). A process that runs the projector restores the model from the projection tables as of the
// projector's committed position (liveRestore.ts); a process that does not cannot: another process's projector
// keeps writing, and a background merge may replace a row the restore would need by a newer one. Such a
// process writes its own model to its data directory as it follows the log, and on start reads the newest
// snapshot and follows the log from its position, instead of the whole log.
//
// A snapshot holds what the restore from the tables gives, taken from memory at one log position: markets,
// open orders (with their book levels, rebuilt by OrdersBuilder.restore), every position, each market's last
// trade and mark, the fills and ledger entries memory holds (log order) and which accounts miss older ones.
// A snapshot written before the ledger windows existed, or before they held rewards, restores them knowing
// nothing of the past. Finished orders are
// left out as the restore leaves them out: `horizon` is the snapshot's position, and an order that finished
// before it is read from ClickHouse once the projector has reached it. The equivalence tests
// (test/projections/liveReads.test.ts, liveTrades.test.ts) restore a model from a snapshot part-way through
// their histories and compare every read with ClickHouse's.
//
// Files: `live-<pos>.v8` (v8.serialize) in their own directory (projections/snapshotFiles.ts).

import { deserialize, serialize } from 'node:v8';
import { SnapshotFiles } from '../snapshotFiles.js';
import type { MarketState } from '../builders/markets.js';
import type { OpenOrder } from '../builders/orders.js';
import type { PositionState } from '../builders/positions.js';
import type { LiveState, MarkState } from './liveState.js';
import type { LedgerTuple } from './ledgerWindows.js';

export const LIVE_SNAPSHOT_FORMAT = 1;

/** A held fill, column by column in FillWindows.add()'s order. */
type FillTuple = [
  string, number, string, number, number,
  string, string, string, string, number, 'BUY' | 'SELL', number, number, number,
  string, string, string, string, number, 'BUY' | 'SELL', number, number, number,
];

export interface LiveSnapshot {
  readonly format: typeof LIVE_SNAPSHOT_FORMAT;
  /** Last log position the snapshot includes. */
  readonly pos: number;
  readonly markets: readonly MarketState[];
  readonly orders: readonly OpenOrder[];
  readonly positions: readonly PositionState[];
  readonly lastTrades: readonly [string, number][];
  readonly marks: readonly [string, MarkState][];
  readonly fills: readonly FillTuple[];
  readonly dropped: readonly string[];
  /** The ledger windows' entries (log order) and the accounts missing older ones; absent in older snapshots. */
  readonly ledger?: readonly LedgerTuple[];
  readonly ledgerDropped?: readonly string[];
  /** The ledger windows know nothing before the position they were restored at (see ledgerWindows.ts). */
  readonly ledgerUnknownPast?: boolean;
  /** The ledger windows hold liquidity rewards ('reward'); a snapshot without it knows no reward before it. */
  readonly ledgerRewards?: boolean;
}

/** The state's snapshot as bytes: taken and serialised at once, so it is the state at its position. */
export function snapshotBytes(state: LiveState): Buffer {
  const positions: PositionState[] = [];
  for (const tokens of state.positions.positions.values()) for (const p of tokens.values()) positions.push(p);
  const fills: FillTuple[] = [];
  for (const f of state.fills.held()) {
    fills.push([
      f.fill_id, f.time_ms, f.condition_id, f.size, f.bucket_index,
      f.taker_order_id, f.taker_account, f.taker_owner, f.taker_token_id, f.taker_outcome, f.taker_side, f.taker_price, f.taker_fee_bps, f.taker_amount,
      f.maker_order_id, f.maker_account, f.maker_owner, f.maker_token_id, f.maker_outcome, f.maker_side, f.maker_price, f.maker_fee_bps, f.maker_amount,
    ]);
  }
  const { lastTrades, marks } = state.exportMarks();
  const snapshot: LiveSnapshot = {
    format: LIVE_SNAPSHOT_FORMAT,
    pos: state.pos,
    markets: [...state.markets.markets.values()],
    orders: [...state.orders.open.values()],
    positions,
    lastTrades,
    marks,
    fills,
    dropped: state.fills.droppedAccounts(),
    ledger: state.ledger.tuples(),
    ledgerDropped: state.ledger.droppedAccounts(),
    ledgerUnknownPast: state.ledger.unknownPast,
    ledgerRewards: true,
  };
  return serialize(snapshot);
}

/** Reads snapshot bytes; throws when they are not a snapshot of this format. */
export function readSnapshot(bytes: Buffer): LiveSnapshot {
  const snapshot = deserialize(bytes) as Partial<LiveSnapshot> | null;
  if (snapshot === null || typeof snapshot !== 'object' || snapshot.format !== LIVE_SNAPSHOT_FORMAT || typeof snapshot.pos !== 'number') {
    throw new Error(`not a live read model snapshot of format ${LIVE_SNAPSHOT_FORMAT}`);
  }
  return snapshot as LiveSnapshot;
}

/** Restores `state` (fresh) from a snapshot: as the restore from the tables would leave it at the snapshot's position. */
export function restoreSnapshot(snapshot: LiveSnapshot, state: LiveState): void {
  if (state.pos !== 0) throw new Error('a live read model snapshot restores into a fresh state only');
  for (const m of snapshot.markets) state.markets.restore(m);
  for (const o of snapshot.orders) state.orders.restore(o);
  for (const p of snapshot.positions) {
    // A snapshot from before positions carried totalCost: the estimate migration 4 gives such stored rows.
    (p as { totalCost?: number }).totalCost ??= p.size > 0 ? Math.trunc((p.cost / p.size) * p.totalBought) : 0;
    state.positions.restore(p);
  }
  state.importMarks(snapshot.lastTrades, snapshot.marks);
  for (const f of snapshot.fills) state.fills.add(...f);
  for (const account of snapshot.dropped) state.fills.markDropped(account);
  for (const e of snapshot.ledger ?? []) state.ledger.add(...e);
  for (const account of snapshot.ledgerDropped ?? []) state.ledger.markDropped(account);
  state.ledger.unknownPast = snapshot.ledger === undefined || snapshot.ledgerUnknownPast === true || snapshot.ledgerRewards !== true;
  state.pos = snapshot.pos;
  state.horizon = snapshot.pos;
}

/** The model's snapshot files (`live-<pos>.v8`). */
export class LiveSnapshotStore extends SnapshotFiles<LiveSnapshot> {
  constructor(dir: string, keep = 2) {
    super(dir, 'live', readSnapshot, keep);
  }
}
