// The at-most-once rule as a property: whatever the skew between the API's clock and the engine host's, the
// queueing delay between admission and application, the freshness window each submission was admitted under
// (windows change across restarts), restarts from a snapshot in between, and replay of the log, no order id
// and no signed request id is ever accepted twice.
//
// The API is modelled by its admission rule alone (signed timestamp within ±window of the API's clock; the
// command then carries dedupeUntil = signedAt + window, as api/trading/orderIntake.ts builds it); the engine
// is the real one, fed commands at the host's clock, which trails admission by the queueing delay.

import t from 'tap';
import fc from 'fast-check';
import { Engine, exportSnapshot, restoreSnapshot, type Command, type EngineEvent, type EngineSnapshot } from '../../engine/index.js';
import { CID, T0, YES, deposit, listMarket, units } from './scenario.js';

const RUNS = Number(process.env.SIGNED_ONCE_RUNS ?? 150);
const ACCOUNT = 'alice';

type Step =
  | { kind: 'order'; signedOffset: number; order: number }
  | { kind: 'repost'; pick: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'split'; request: number; signedOffset: number }
  | { kind: 'resend'; pick: number }
  | { kind: 'restart' };

interface Timing {
  /** ms the API's clock moves forward before this step. */
  readonly advance: number;
  /** Engine clock minus API clock (ms), either way. */
  readonly skew: number;
  /** Queueing delay between admission and application (ms). */
  readonly delay: number;
  /** The freshness window this submission is admitted under (s). */
  readonly windowSec: number;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('order' as const), signedOffset: fc.integer({ min: -70_000, max: 70_000 }), order: fc.nat(1_000_000) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('repost' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('split' as const), request: fc.nat(1_000_000), signedOffset: fc.integer({ min: -40_000, max: 40_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resend' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const timingArb: fc.Arbitrary<Timing> = fc.record({
  advance: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 30_000 })),
  skew: fc.integer({ min: -3_000, max: 3_000 }),
  delay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5_000 })),
  windowSec: fc.constantFrom(1, 5, 30, 60, 120),
});

interface SignedOrder {
  readonly id: string;
  readonly signedAt: number;
}

interface SignedSplit {
  readonly id: string;
  readonly signedAt: number;
}

/** Runs a session; returns every event, in order, and the commands the engine applied (the log). */
function session(steps: readonly (readonly [Step, Timing])[]): { events: EngineEvent[]; log: Command[] } {
  let engine = new Engine();
  const log: Command[] = [];
  const events: EngineEvent[] = [];
  const apply = (cmd: Command): void => {
    log.push(cmd);
    events.push(...engine.apply(cmd));
  };
  apply(listMarket());
  apply(deposit(ACCOUNT, 1_000_000));
  const orders: SignedOrder[] = [];
  const splits: SignedSplit[] = [];
  let apiNow = T0;
  let engineNow = T0;
  for (const [step, timing] of steps) {
    apiNow += timing.advance;
    // The host's clock never runs backwards (the engine takes the max anyway); it trails admission by the delay.
    engineNow = Math.max(engineNow, apiNow + timing.skew + timing.delay);
    const windowMs = timing.windowSec * 1000;
    const fresh = (signedAt: number): boolean => Math.abs(signedAt - apiNow) <= windowMs;
    const placeAt = (o: SignedOrder): void => {
      if (!fresh(o.signedAt)) return; // the API's early refusal
      apply({
        type: 'PlaceOrder', time: engineNow, orderId: o.id, account: ACCOUNT, owner: 'key', tokenId: YES, side: 'BUY',
        makerAmount: units(0.5), takerAmount: units(50), orderType: 'GTC', postOnly: false, expiration: 0,
        dedupeUntil: o.signedAt + windowMs, signedAt: o.signedAt,
      });
    };
    const splitAt = (s: SignedSplit): void => {
      if (Math.abs(s.signedAt - apiNow) > windowMs) return;
      apply({ type: 'Split', time: engineNow, account: ACCOUNT, conditionId: CID, amount: units(1), request: { id: s.id, signedAt: s.signedAt, until: s.signedAt + windowMs + 1000 } });
    };
    switch (step.kind) {
      case 'order': {
        const o = { id: `o${step.order}-${apiNow + step.signedOffset}`, signedAt: Math.max(0, apiNow + step.signedOffset) };
        orders.push(o);
        placeAt(o);
        break;
      }
      case 'repost':
        if (orders.length > 0) placeAt(orders[step.pick % orders.length] as SignedOrder);
        break;
      case 'cancel':
        if (orders.length > 0) apply({ type: 'CancelOrder', time: engineNow, orderId: (orders[step.pick % orders.length] as SignedOrder).id, account: ACCOUNT });
        break;
      case 'split': {
        const s = { id: `r${step.request}-${apiNow}`, signedAt: Math.max(0, apiNow + step.signedOffset) };
        splits.push(s);
        splitAt(s);
        break;
      }
      case 'resend':
        if (splits.length > 0) splitAt(splits[step.pick % splits.length] as SignedSplit);
        break;
      case 'restart': {
        // A restart: the engine comes back from a snapshot (through JSON, as written to disk).
        const snapshot = JSON.parse(JSON.stringify(exportSnapshot(engine))) as EngineSnapshot;
        const hash = engine.stateHash();
        engine = restoreSnapshot(snapshot, undefined, { idHashKey: 0x5eed });
        if (engine.stateHash() !== hash) throw new Error('snapshot restore changed the state hash');
        break;
      }
    }
    const violations = engine.checkInvariants();
    if (violations.length > 0) throw new Error(`invariants: ${violations.join('; ')}`);
  }
  return { events, log };
}

function acceptedTwice(events: readonly EngineEvent[]): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const e of events) {
    if (e.type !== 'OrderAccepted') continue;
    if (seen.has(e.orderId)) twice.push(e.orderId);
    seen.add(e.orderId);
  }
  return twice;
}

t.test('no order id is accepted twice, and no signed request applied twice, under any skew, delay, window or restart', async (t) => {
  let acceptances = 0;
  let staleRefusals = 0;
  let replays = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(stepArb, timingArb), { minLength: 20, maxLength: 200, size: 'max' }), (steps) => {
      const { events, log } = session(steps);
      const twice = acceptedTwice(events);
      if (twice.length > 0) throw new Error(`accepted twice: ${twice.join(', ')}`);
      // Each signed split applied at most once: a request id's Split leaves one FullSetSplit at most.
      const splitsApplied = events.filter((e) => e.type === 'PositionSplit').length;
      const requestIds = new Set(log.flatMap((c) => (c.type === 'Split' && c.request !== undefined ? [c.request.id] : [])));
      if (splitsApplied > requestIds.size) throw new Error(`${splitsApplied} splits for ${requestIds.size} signed requests`);
      // Replay of the log gives the same events.
      const replayed = new Engine();
      const again = log.flatMap((c) => replayed.apply(c));
      if (JSON.stringify(again) !== JSON.stringify(events)) throw new Error('replay of the log differs');
      acceptances += events.filter((e) => e.type === 'OrderAccepted').length;
      staleRefusals += events.filter((e) => (e.type === 'OrderRejected' && e.code === 'ORDER_STALE') || (e.type === 'CommandRejected' && e.code === 'REQUEST_STALE')).length;
      replays += events.filter((e) => (e.type === 'OrderRejected' && e.code === 'DUPLICATED') || (e.type === 'CommandRejected' && e.code === 'REQUEST_REPLAYED')).length;
    }),
    { numRuns: RUNS, seed: 20261124 },
  );
  // The generator must reach the interesting cases, or the property says little.
  t.ok(acceptances > 100, `${acceptances} orders accepted`);
  t.ok(staleRefusals > 10, `${staleRefusals} refused as stale by the engine`);
  t.ok(replays > 10, `${replays} refused as duplicates or replays`);
});

t.test('a signed request: malformed stamps refused; remembered only once applied; forgotten at its end', async (t) => {
  const engine = new Engine();
  engine.apply(listMarket());
  engine.apply(deposit(ACCOUNT, 10));
  const split = (request: unknown, amount = units(1), time = T0): EngineEvent[] =>
    engine.apply({ type: 'Split', time, account: ACCOUNT, conditionId: CID, amount, request } as Command);
  const codes = (events: readonly EngineEvent[]): string[] => events.map((e) => (e.type === 'CommandRejected' ? e.code : e.type));
  for (const bad of [{}, { id: '', signedAt: T0, until: T0 + 1 }, { id: 'x', signedAt: T0 + 5, until: T0 }, { id: 'x', signedAt: T0, until: T0 + 2 ** 31 }, { id: 'x', signedAt: -1, until: T0 }, 'x', null]) {
    t.same(codes(split(bad)), ['INVALID_COMMAND'], `malformed ${JSON.stringify(bad)}`);
  }
  const r = { id: 'r1', signedAt: T0, until: T0 + 31_000 };
  t.same(codes(split(r, units(100))), ['NOT_ENOUGH_BALANCE'], 'refused by the handler');
  t.same(codes(split(r)), ['PositionSplit'], 'the refused request was not remembered: it applies now');
  t.same(codes(split(r)), ['REQUEST_REPLAYED'], 'then a copy is a replay');
  t.same(codes(split(r, units(1), T0 + 31_000)), ['REQUEST_STALE'], 'and at its end the engine forgets it: stale');
  t.equal(engine.state.requests.size(), 0);
  t.equal(engine.state.requests.forgottenThrough, T0, 'the horizon moved to its signing time');
  t.same(codes(split({ id: 'r2', signedAt: T0, until: T0 + 120_000 }, units(1), T0 + 31_000)), ['REQUEST_STALE'], 'signed at the horizon: stale whatever its window');
  t.same(codes(split({ id: 'r3', signedAt: T0 + 1, until: T0 + 120_000 }, units(1), T0 + 31_000)), ['PositionSplit'], 'signed after it: fresh');
  t.same(engine.checkInvariants(), []);
});
