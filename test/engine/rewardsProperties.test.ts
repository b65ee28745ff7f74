// Property tests of the rewards program over generated sessions (makers quoting and cancelling around a
// moving price, in two markets, the terms changed, ended and set again, quiet spells of minutes to hours, for
// one to three UTC days): after every command the invariants hold; each market and day is distributed at most
// once; the amounts of a day add up to its pool, and what is paid is the pool less the amounts under the $1
// minimum, credited as RewardPaid; a replay of the same commands gives identical events, and so does a
// restore from a snapshot taken anywhere followed by the rest of the commands.
//
// PMX_PROPERTY_RUNS sets the number of generated sessions.

import t from 'tap';
import fc from 'fast-check';
import { Engine, exportSnapshot, restoreSnapshot, type Command, type EngineEvent } from '../../engine/index.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 40);
const DAY0 = 19_676 * 86_400_000;
const MIN = 60_000;
/** The largest daily rate the sessions set. */
const MAX_RATE = 5_000_000_000;
const MAKERS = ['0xa1', '0xb2', '0xc3', '0xd4'].map((p) => p.padEnd(42, '0'));
const MARKETS = [
  { cid: '0xm1', tokens: ['101', '102'] as [string, string], tick: 10_000 },
  { cid: '0xm2', tokens: ['201', '202'] as [string, string], tick: 1_000 },
];

type Op =
  | { kind: 'quote'; maker: number; market: number; side: 'BUY' | 'SELL'; outcome: 0 | 1; offset: number; shares: number }
  | { kind: 'cancel'; maker: number; which: number }
  | { kind: 'wait'; minutes: number; ms: number }
  | { kind: 'terms'; market: number; rate: number; spreadCents: number; minShares: number }
  | { kind: 'end'; market: number }
  | { kind: 'drift'; market: number; by: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('quote' as const), maker: fc.nat(3), market: fc.nat(1), side: fc.constantFrom('BUY' as const, 'SELL' as const), outcome: fc.constantFrom(0 as const, 1 as const), offset: fc.integer({ min: 1, max: 6 }), shares: fc.integer({ min: 1, max: 400 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancel' as const), maker: fc.nat(3), which: fc.nat(50) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('wait' as const), minutes: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 60, max: 900 })), ms: fc.nat(59_999) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('terms' as const), market: fc.nat(1), rate: fc.integer({ min: 1, max: MAX_RATE }), spreadCents: fc.integer({ min: 1, max: 8 }), minShares: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), market: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drift' as const), market: fc.nat(1), by: fc.integer({ min: -30, max: 30 }) }) },
);

/** The commands of a session: setup, then the ops at increasing times, then AdvanceTime past the last day. */
function commandsOf(ops: readonly Op[]): Command[] {
  let time = DAY0 - 5 * MIN;
  const out: Command[] = [];
  for (const m of MARKETS) out.push({ type: 'ListMarket', time, conditionId: m.cid, tokenIds: m.tokens, tickSize: m.tick, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  for (const a of MAKERS) {
    out.push({ type: 'Deposit', time, account: a, amount: 100_000_000_000 });
    for (const m of MARKETS) out.push({ type: 'Split', time, account: a, conditionId: m.cid, amount: 10_000_000_000 });
  }
  for (const m of MARKETS) out.push({ type: 'SetMarketRewards', time, conditionId: m.cid, dailyRate: 50_000_000, maxSpread: 30_000, minSize: 5_000_000 });
  const fair = MARKETS.map(() => 500_000);
  const placed: string[][] = MAKERS.map(() => []);
  let n = 0;
  for (const op of ops) {
    time += 1;
    switch (op.kind) {
      case 'quote': {
        const m = MARKETS[op.market] as (typeof MARKETS)[number];
        const yesPrice = (fair[op.market] as number) + (op.side === 'BUY' ? -1 : 1) * (op.outcome === 0 ? 1 : -1) * op.offset * m.tick;
        const price = op.outcome === 0 ? yesPrice : 1_000_000 - yesPrice;
        if (price <= 0 || price >= 1_000_000) break;
        const qty = op.shares * 1_000_000;
        const cash = (qty / 1_000_000) * price;
        const id = `0x${(++n).toString(16)}`;
        placed[op.maker]?.push(id);
        out.push({
          type: 'PlaceOrder', time, orderId: id, account: MAKERS[op.maker] as string, owner: 'k', tokenId: m.tokens[op.outcome], side: op.side,
          makerAmount: op.side === 'BUY' ? cash : qty, takerAmount: op.side === 'BUY' ? qty : cash, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: time + 3_600_000,
        });
        break;
      }
      case 'cancel': {
        const ids = placed[op.maker] ?? [];
        if (ids.length > 0) out.push({ type: 'CancelOrder', time, orderId: ids[op.which % ids.length] as string, account: MAKERS[op.maker] as string });
        break;
      }
      case 'wait':
        time += op.minutes * MIN + op.ms;
        out.push({ type: 'AdvanceTime', time });
        break;
      case 'terms':
        out.push({ type: 'SetMarketRewards', time, conditionId: (MARKETS[op.market] as (typeof MARKETS)[number]).cid, dailyRate: op.rate, maxSpread: op.spreadCents * 10_000, minSize: op.minShares * 1_000_000 });
        break;
      case 'end':
        out.push({ type: 'EndMarketRewards', time, conditionId: (MARKETS[op.market] as (typeof MARKETS)[number]).cid });
        break;
      case 'drift': {
        const m = MARKETS[op.market] as (typeof MARKETS)[number];
        fair[op.market] = Math.min(990_000, Math.max(10_000, (fair[op.market] as number) + op.by * m.tick));
        break;
      }
    }
  }
  out.push({ type: 'AdvanceTime', time: (Math.floor(time / 86_400_000) + 1) * 86_400_000 + 1 });
  return out;
}

/** The payout properties of one session's events; the first broken one, or undefined. */
function payoutProblem(events: readonly EngineEvent[]): string | undefined {
  const seen = new Set<string>();
  const paid = new Map<string, number>();
  for (const e of events) if (e.type === 'RewardPaid') paid.set(`${e.conditionId} ${e.day}`, (paid.get(`${e.conditionId} ${e.day}`) ?? 0) + e.amount);
  for (const e of events) {
    if (e.type !== 'RewardsDistributed') continue;
    const key = `${e.conditionId} ${e.day}`;
    if (seen.has(key)) return `${key} distributed twice`;
    seen.add(key);
    const total = e.earnings.reduce((n, [, a]) => n + a, 0);
    if (total !== e.pool) return `${key}: earnings add up to ${total}, pool ${e.pool}`;
    const under = e.earnings.filter(([, a]) => a < 1_000_000).reduce((n, [, a]) => n + a, 0);
    if (e.paid !== e.pool - under || e.withheld !== under) return `${key}: paid ${e.paid}, withheld ${e.withheld}, pool ${e.pool}, under the minimum ${under}`;
    if ((paid.get(key) ?? 0) !== e.paid) return `${key}: RewardPaid add up to ${paid.get(key) ?? 0}, distributed says ${e.paid}`;
    if (e.pool > Math.floor((MAX_RATE * e.samples) / 1440)) return `${key}: pool ${e.pool} over its samples' rates`;
  }
  for (const key of paid.keys()) if (!seen.has(key)) return `${key}: paid without a distribution`;
  return undefined;
}

t.test('generated sessions: payouts add up, at most once per market and day, replay and restore agree', async (t) => {
  let distributed = 0;
  let paidSessions = 0;
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 10, maxLength: 120 }), fc.nat(1000), (ops, cut) => {
      const commands = commandsOf(ops);
      const engine = new Engine();
      const events: EngineEvent[] = [];
      const at = cut % commands.length;
      let snapshot: ReturnType<typeof exportSnapshot> | undefined;
      for (const [i, cmd] of commands.entries()) {
        if (i === at) snapshot = exportSnapshot(engine);
        events.push(...engine.apply(cmd));
        const problems = engine.checkInvariants();
        if (problems.length > 0) throw new Error(`after ${cmd.type}: ${problems.join('; ')}`);
      }
      const problem = payoutProblem(events);
      if (problem !== undefined) throw new Error(problem);
      distributed += events.filter((e) => e.type === 'RewardsDistributed').length;
      if (events.some((e) => e.type === 'RewardPaid')) paidSessions += 1;

      const replay = new Engine();
      const again = commands.flatMap((c) => replay.apply(c));
      if (JSON.stringify(again) !== JSON.stringify(events)) throw new Error('the replay gave other events');
      if (replay.stateHash() !== engine.stateHash()) throw new Error('the replay ended in another state');

      const restored = restoreSnapshot(JSON.parse(JSON.stringify(snapshot)) as typeof snapshot & object);
      const rest = commands.slice(at).flatMap((c) => restored.apply(c));
      const tail = events.slice(events.length - rest.length);
      if (JSON.stringify(rest) !== JSON.stringify(tail)) throw new Error(`the restore at command ${at} gave other events`);
      if (restored.stateHash() !== engine.stateHash()) throw new Error(`the restore at command ${at} ended in another state`);
    }),
    { numRuns: RUNS },
  );
  t.ok(distributed > 0, `${distributed} market-days distributed`);
  t.ok(paidSessions > 0, `${paidSessions} sessions paid someone`);
});
