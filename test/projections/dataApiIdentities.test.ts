// The Data API's figures agree with each other and with the engine, over generated histories (the model
// generator's classic and neg-risk variants: every kind of fill, splits, merges, resolutions, redemptions,
// conversions, fees), read from the in-memory read model after every history:
//   /value = Σ /positions currentValue (sizeThreshold 0)
//   Σ /closed-positions realizedPnl + Σ /positions (realizedPnl + cashPnl) = the collateral the wallet made
//     trading (its engine balance − deposits + withdrawals − liquidity rewards paid) + /value
//   /oi of each market = the collateral the engine holds locked in its full sets (less, once NO won, the NO
//     that neg-risk conversions burned: locked, but no one's)
//   the account totals the leaderboards rank by: volume = Σ /activity TRADE usdcSize, cash = Σ (realizedPnl −
//     cost) over the positions, tokens = Σ sizes held (so cash <= PnL <= cash + tokens, the bounds
//     readModel/leaderboard.ts prunes with)
// ClickHouse gives the same answers as memory (dataApiReads.test.ts), so these hold for both stores.

import fc from 'fast-check';
import t from 'tap';
import { Engine, type Command, type EngineEvent } from '../../engine/index.js';
import { AccountTotalsBuilder } from '../../projections/builders/accountTotals.js';
import { noMetadata } from '../../projections/readModel/metadata.js';
import type { Activity } from '../../projections/readModel/activity.js';
import type { Position } from '../../projections/readModel/positions.js';
import type { ClosedPosition } from '../../projections/readModel/portfolio.js';
import { LiveState } from '../../projections/live/liveState.js';
import { livePositions } from '../../projections/live/liveReads.js';
import { liveActivity } from '../../projections/live/liveActivity.js';
import { liveClosedPositions, liveOpenInterest, liveValue } from '../../projections/live/livePortfolio.js';
import { NOT_IN_MEMORY } from '../../projections/live/liveReads.js';
import { ACCOUNTS, genesis, opsArb, toCommands, type Variant } from '../engine/modelCommands.js';
import { FEE_ACCOUNT } from '../support/projectionFixtures.js';

const base6 = (x: number): number => Math.round(x * 1_000_000);
const sum6 = (xs: readonly number[]): number => xs.reduce((n, x) => n + base6(x), 0);

/** Checks the identities after one history; returns the kinds of event it had. */
async function checkHistory(commands: readonly Command[]): Promise<Set<string>> {
  const engine = new Engine();
  const state = new LiveState({ feeAccount: FEE_ACCOUNT });
  const totals = new AccountTotalsBuilder();
  const net = new Map<string, number>();
  const events: EngineEvent[] = [];
  commands.forEach((command, i) => {
    const record = { pos: i + 1, command, events: engine.apply(command) };
    state.apply(record);
    totals.apply(record);
    for (const e of record.events) {
      events.push(e);
      if (e.type === 'CollateralDeposited') net.set(e.account, (net.get(e.account) ?? 0) + e.amount);
      if (e.type === 'CollateralWithdrawn') net.set(e.account, (net.get(e.account) ?? 0) - e.amount);
      // A liquidity reward is collateral the wallet was paid, not made trading: no position's PnL holds it.
      if (e.type === 'RewardPaid') net.set(e.account, (net.get(e.account) ?? 0) + e.amount);
    }
  });
  const fail = (what: string, got: unknown, want: unknown): never => {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  };
  for (const user of ACCOUNTS) {
    const open = (await livePositions(state, noMetadata, { user, sizeThreshold: 0, limit: 500 })) as Position[];
    const closed: ClosedPosition[] = await liveClosedPositions(state, noMetadata, { user, limit: 50 });
    const [worth] = await liveValue(state, noMetadata, { user });
    const value = base6(worth?.value ?? NaN);
    if (value !== sum6(open.map((p) => p.currentValue))) fail(`${user} value`, value, sum6(open.map((p) => p.currentValue)));
    const b = engine.balances(user);
    const cash = (b?.free ?? 0) + (b?.reserved ?? 0) - (net.get(user) ?? 0);
    const pnl = sum6(closed.map((p) => p.realizedPnl)) + sum6(open.map((p) => p.realizedPnl + p.cashPnl));
    if (pnl !== cash + value) fail(`${user} realised + unrealised PnL`, pnl, cash + value);

    const t = totals.totals.get(user);
    let filled = 0;
    for (const e of events) {
      if (e.type !== 'TradeExecuted') continue;
      if (e.taker.account === user) filled += e.taker.amount;
      if (e.maker.account === user) filled += e.maker.amount;
    }
    if ((t?.volume ?? 0) !== filled) fail(`${user} volume`, t?.volume, filled);
    // A wallet that holds positions but never filled is not known to memory to have no fills (ClickHouse's then).
    const trades = await liveActivity(state, noMetadata, { user, type: ['TRADE'], limit: 500 });
    if (trades !== NOT_IN_MEMORY && trades.length < 500 && sum6(trades.map((r: Activity) => r.usdcSize)) !== filled) fail(`${user} Σ activity`, sum6(trades.map((r) => r.usdcSize)), filled);
    let cashOfPositions = 0;
    let held = 0;
    for (const p of state.positions.positions.get(user)?.values() ?? []) {
      cashOfPositions += p.realizedPnl - p.cost;
      held += p.size;
    }
    if ((t?.cash ?? 0) !== cashOfPositions) fail(`${user} totals cash`, t?.cash, cashOfPositions);
    if ((t?.tokens ?? 0) !== held) fail(`${user} totals tokens`, t?.tokens, held);
    if (t !== undefined && (t.cash > cash + value || cash + value > t.cash + t.tokens)) fail(`${user} PnL within bounds`, cash + value, [t.cash, t.cash + t.tokens]);
  }
  for (const oi of await liveOpenInterest(state, noMetadata, {})) {
    // The NO a neg-risk conversion burned stays locked but is no one's: once NO wins, it is no interest.
    const m = engine.market(oi.market);
    const locked = m === undefined ? NaN : m.locked - (m.winningOutcome === 1 ? m.convertedNo : 0);
    if (base6(oi.value) !== locked) fail(`open interest of ${oi.market}`, base6(oi.value), locked);
  }
  return new Set(events.map((e) => (e.type === 'TradeExecuted' ? `${e.type}:${e.kind}` : e.type)));
}

for (const variant of ['classic', 'negRisk'] as Variant[]) {
  t.test(`the figures agree with each other and with the engine (${variant} histories)`, async (t) => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(opsArb(250, variant), async (ops) => {
        for (const kind of await checkHistory([...genesis(variant), ...toCommands(ops)])) seen.add(kind);
      }),
      { numRuns: Number(process.env.PMX_PROPERTY_RUNS ?? 100), seed: Number(process.env.PMX_PROPERTY_SEED ?? 20260618) },
    );
    const kinds = ['TradeExecuted:normal', 'TradeExecuted:mint', 'TradeExecuted:merge', 'PositionSplit', 'PositionsMerged', 'MarketResolved', 'PositionRedeemed', ...(variant === 'negRisk' ? ['PositionsConverted'] : [])];
    for (const kind of kinds) t.ok(seen.has(kind), `the histories had ${kind}`);
  });
}
