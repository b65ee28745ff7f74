// A small hand-built session for the read-model tests, run through the real engine, journal and projector
// into chDB. Every figure the tests expect is worked out by hand in the comments here.
//
// Markets (no fees except C5's 1% taker fee; minimum order 1 share; T0 is minute-aligned):
//   C1 "Will Alpha happen?"  Y1/N1   C2 "Beta cup"  Y2/N2   C3 "Gamma vote"  Y3/N3 (resolved: outcome 0)
//   C4 (no metadata)         Y4/N4   C5 "Epsilon"   Y5/N5
// Minute by minute (fill n = the n-th fill; every fill's time is its command's time):
//   m0   bob SELL 10 Y1 @0.40 rests; alice BUY 10 @0.40 takes it            fill1  (alice taker, bob maker)
//   m2   bob SELL 10 Y1 @0.60 rests; alice BUY 10 @0.60 [builder B] takes it fill2
//   m5   carol BUY 5 Y1 @0.70 [builder B] rests; alice SELL 5 @0.70 takes it fill3  (carol maker)
//   m7   dave BUY 5 Y1 @0.60 [builder C] rests, bob SELL 5 Y1 @0.70 rests → Y1 book 0.60 / 0.70, mid 0.65
//   m8   C2: bob BUY 2 Y2 @0.20 and carol SELL 2 Y2 @0.40 rest → Y2 mid 0.30 (N2 0.70)
//   m9   C3: bob SELL 4 Y3 @0.25 [builder C] rests; alice BUY 4 @0.25 takes it fill4  (bob maker)
//   m10  C3 resolved, outcome 0 wins
//   m11  C5: carol SELL 2 Y5 @0.50, bob SELL 3 Y5 @0.55 rest; dave BUY 5 Y5 @0.60 takes both: fill5
//        (bucket 0, carol, 0.50) and fill6 (bucket 1, bob, 0.55)
//   m12  C5: carol BUY 4 N5 @0.30 rests; dave BUY 4 Y5 @0.70 takes it: fill7, a mint (both sides BUY)
// alice's positions: Y1 15 (cost 4 + 6 − 2.5 = 7.5, avg 0.50, bought 20, realized 3.5 − 2.5 = 1.0),
// Y2 3 and N2 3 (split 3: cost 1.5 each), Y3 4 (cost 1.0, avg 0.25), Y4 0.5 and N4 0.5 (split 0.5).

import type { Command, PlaceOrder } from '../../engine/index.js';
import { buy, deposit, listMarket, sell, units } from '../engine/scenario.js';
import { Projector } from '../../projections/projector.js';
import { metadataFrom, readContext, type MarketMetadata, type ReadContext } from '../../projections/readModel/index.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession } from '../support/projectionFixtures.js';

/** 2023-11-14T22:14:00Z, a minute boundary. */
export const T0 = 1_700_000_040_000;
export const T0S = T0 / 1000;
export const MIN = 60_000;
export const at = (minute: number, second = 0): number => T0 + minute * MIN + second * 1000;

export const ALICE = '0xa11ce';
export const BOB = '0xb0b';
export const CAROL = '0xca401';
export const DAVE = '0xda5e';
export const BUILDER_B = '0x' + 'bb'.repeat(32);
export const BUILDER_C = '0x' + 'cc'.repeat(32);

export const C1 = '0xc1';
export const C2 = '0xc2';
export const C3 = '0xc3';
export const C4 = '0xc4';
export const C5 = '0xc5';
export const TOKENS: Record<string, [string, string]> = { [C1]: ['Y1', 'N1'], [C2]: ['Y2', 'N2'], [C3]: ['Y3', 'N3'], [C4]: ['Y4', 'N4'], [C5]: ['Y5', 'N5'] };

export const METADATA: Record<string, MarketMetadata> = {
  [C1]: { title: 'Will Alpha happen?', slug: 'alpha', icon: 'https://img/alpha.png', eventSlug: 'alpha-event', eventId: '101', outcomes: ['Alpha', 'Not Alpha'], endDate: '2026-03-01' },
  [C2]: { title: 'Beta cup', slug: 'beta', icon: 'https://img/beta.png', eventSlug: 'beta-event', eventId: '102', outcomes: ['Home', 'Away'], endDate: '2026-01-15' },
  [C3]: { title: 'Gamma vote', slug: 'gamma', icon: '', eventSlug: 'gamma-event', eventId: '103', outcomes: ['Yes', 'No'], endDate: '2025-12-31' },
  [C5]: { title: 'Epsilon', slug: 'epsilon', icon: '', eventSlug: 'eps', eventId: '105', outcomes: ['Up', 'Down'], endDate: '2026-06-30' },
};

function tagged(order: PlaceOrder, builder: string): PlaceOrder {
  return { ...order, builder };
}

export function readModelCommands(): Command[] {
  const list = (conditionId: string, takerFeeBps = 0): Command => listMarket({ conditionId, tokenIds: TOKENS[conditionId] as [string, string], minSize: units(1), takerFeeBps, time: T0 });
  const split = (account: string, conditionId: string, amount: number, time = T0): Command => ({ type: 'Split', time, account, conditionId, amount: units(amount) });
  const o = (minute: number, second = 0) => ({ time: at(minute, second) });
  return [
    list(C1), list(C2), list(C3), list(C4), list(C5, 100),
    ...[ALICE, BOB, CAROL, DAVE].map((a) => deposit(a, 1_000, T0)),
    split(BOB, C1, 100), split(ALICE, C2, 3), split(CAROL, C2, 10), split(BOB, C3, 10), split(ALICE, C4, 0.5),
    split(CAROL, C5, 10), split(BOB, C5, 10),
    sell('0xo1', BOB, 'Y1', 10, 0.4, o(0, 1)),
    buy('0xo2', ALICE, 'Y1', 10, 0.4, o(0, 2)),
    sell('0xo3', BOB, 'Y1', 10, 0.6, o(2, 1)),
    tagged(buy('0xo4', ALICE, 'Y1', 10, 0.6, o(2, 2)), BUILDER_B),
    tagged(buy('0xo5', CAROL, 'Y1', 5, 0.7, o(5, 1)), BUILDER_B),
    sell('0xo6', ALICE, 'Y1', 5, 0.7, o(5, 2)),
    tagged(buy('0xo7', DAVE, 'Y1', 5, 0.6, o(7, 1)), BUILDER_C),
    sell('0xo8', BOB, 'Y1', 5, 0.7, o(7, 2)),
    buy('0xo9', BOB, 'Y2', 2, 0.2, o(8, 1)),
    sell('0xo10', CAROL, 'Y2', 2, 0.4, o(8, 2)),
    tagged(sell('0xo11', BOB, 'Y3', 4, 0.25, o(9, 1)), BUILDER_C),
    buy('0xo12', ALICE, 'Y3', 4, 0.25, o(9, 2)),
    { type: 'ResolveMarket', time: at(10), conditionId: C3, winningOutcome: 0 },
    sell('0xo13', CAROL, 'Y5', 2, 0.5, o(11, 1)),
    sell('0xo14', BOB, 'Y5', 3, 0.55, o(11, 2)),
    buy('0xo15', DAVE, 'Y5', 5, 0.6, o(11, 3)),
    buy('0xo16', CAROL, 'N5', 4, 0.3, o(12, 1)),
    buy('0xo17', DAVE, 'Y5', 4, 0.7, o(12, 2)),
  ];
}

export interface ReadModelFixture {
  readonly ctx: ReadContext;
  readonly fillIds: string[];
}

/** Runs the session through engine, journal and projector; fails when the engine refused any command. */
export async function readModelFixture(now = at(12, 30)): Promise<ReadModelFixture> {
  const session = await loggedSession(readModelCommands());
  const refused = session.records.flatMap((r) => r.events).filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused.length > 0) throw new Error(`the fixture session was refused: ${JSON.stringify(refused)}`);
  const fillIds = session.records.flatMap((r) => r.events).flatMap((e) => (e.type === 'TradeExecuted' ? [e.tradeId] : []));
  if (fillIds.length !== 7) throw new Error(`expected 7 fills, got ${fillIds.length}`);
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 7 });
  await projector.start();
  await projector.catchUp();
  await session.journal.close();
  const ctx = readContext(ch, db, { metadata: metadataFrom((id) => METADATA[id]), now: () => now, feeAccount: FEE_ACCOUNT });
  return { ctx, fillIds };
}

/** The same context with another clock. */
export function atTime(ctx: ReadContext, nowMs: number): ReadContext {
  return { ...ctx, now: () => nowMs };
}
