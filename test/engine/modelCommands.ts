// Generators for model-based tests: plain "ops" drawn by fast-check, turned into engine commands by a
// deterministic interpreter. Generators are skewed towards the interesting cases: prices near the spread,
// sizes around the minimum, cancels of unknown ids, self-trades (few accounts), off-tick prices after tick
// changes, rare resolutions.
//
// Two variants. 'classic': two markets (what projection and host tests sample by seed; its sessions stay as
// they were). 'negRisk' (the model and snapshot tests): the same ops over the two markets and the three
// questions of a neg-risk event (a fourth joins it mid-session), plus conversions and resolutions of the
// event by its winner, so conversions mix with trading, splits, merges, resolutions and redemptions.

import fc from 'fast-check';
import type { Command } from '../../engine/index.js';

export const ACCOUNTS = ['0xa1', '0xa2', '0xa3', '0xa4'] as const;
export const NEG_RISK_EVENT = '0xnr';
/** Markets 2 to 5 are questions 0 to 3 of NEG_RISK_EVENT; market 5 is listed by an `addQuestion` op. */
export const MARKETS = [
  { conditionId: '0xm1', tokenIds: ['11', '12'] as [string, string] },
  { conditionId: '0xm2', tokenIds: ['21', '22'] as [string, string] },
  { conditionId: '0xq0', tokenIds: ['31', '32'] as [string, string], questionIndex: 0 },
  { conditionId: '0xq1', tokenIds: ['41', '42'] as [string, string], questionIndex: 1 },
  { conditionId: '0xq2', tokenIds: ['51', '52'] as [string, string], questionIndex: 2 },
  { conditionId: '0xq3', tokenIds: ['61', '62'] as [string, string], questionIndex: 3 },
] as const;
const LATE_QUESTION = 5;
const CLASSIC_MARKETS = 2;

export type Variant = 'classic' | 'negRisk';
export const START = 1_700_000_000_000;

export type Op =
  | { kind: 'place'; acct: number; market: number; outcome: 0 | 1; side: 'BUY' | 'SELL'; priceMilli: number; lots: number; orderType: 'GTC' | 'GTD' | 'FOK' | 'FAK'; postOnly: boolean; lifetimeSec: number }
  | { kind: 'placeRaw'; acct: number; market: number; outcome: 0 | 1; side: 'BUY' | 'SELL'; makerAmount: number; takerAmount: number; orderType: 'GTC' | 'FOK' | 'FAK' }
  | { kind: 'cancel'; acct: number; pick: number }
  | { kind: 'cancelAll'; acct: number }
  | { kind: 'cancelMarket'; acct: number; market: number; byToken: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'split' | 'merge'; acct: number; market: number; amount: number }
  | { kind: 'deposit' | 'withdraw'; acct: number; amount: number }
  | { kind: 'pause' | 'resume'; market: number }
  | { kind: 'tick'; market: number; tick: number }
  | { kind: 'fees'; market: number; maker: number; taker: number }
  | { kind: 'resolve'; market: number; winner: 0 | 1 }
  | { kind: 'redeem'; acct: number; market: number }
  | { kind: 'convert'; acct: number; indexSet: string; amount: number }
  | { kind: 'addQuestion'; how: 'list' | 'listAlone' | 'join' }
  | { kind: 'resolveEvent'; winner: number };

const acct = fc.integer({ min: 0, max: ACCOUNTS.length - 1 });
const classicMarket = fc.integer({ min: 0, max: CLASSIC_MARKETS - 1 });
const anyMarket = fc.integer({ min: 0, max: MARKETS.length - 1 });
const outcome = fc.constantFrom<0 | 1>(0, 1);
const side = fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL');
/** Prices in thousandths: mostly on the 0.01 tick near the middle, sometimes anywhere, sometimes invalid. */
const priceMilli = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 40, max: 60 }).map((c) => c * 10) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 99 }).map((c) => c * 10) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 999 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1000, 995, 5) },
);
/** Sizes in lots of 0.01 share; the model markets' minimum is 1 share (100 lots). */
const lots = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 100, max: 1_500 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 120 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_500, max: 200_000 }) },
);
const amount = fc.oneof(fc.integer({ min: 1, max: 50_000_000 }), fc.constantFrom(0, -5, 2 ** 53));
/** Index sets: mostly subsets of the four questions, sometimes empty, beyond them or malformed. */
const indexSet = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 1, max: 7 }).map(String) },
  { weight: 4, arbitrary: fc.integer({ min: 8, max: 15 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '16', '31', '07', '-3', 'x', (1n << 255n).toString()) },
);

/** The ops of every variant, over `market`'s markets. */
const tradingOps = (market: fc.Arbitrary<number>): fc.WeightedArbitrary<Op>[] => [
  { weight: 120, arbitrary: fc.record({ kind: fc.constant('place' as const), acct, market, outcome, side, priceMilli, lots, orderType: fc.constantFrom('GTC', 'GTC', 'GTC', 'GTD', 'FOK', 'FAK') as fc.Arbitrary<'GTC' | 'GTD' | 'FOK' | 'FAK'>, postOnly: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), lifetimeSec: fc.integer({ min: 0, max: 600 }) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('placeRaw' as const), acct, market, outcome, side, makerAmount: fc.integer({ min: 1, max: 30_000_000 }), takerAmount: fc.integer({ min: 1, max: 60_000_000 }), orderType: fc.constantFrom('GTC', 'FOK', 'FAK') as fc.Arbitrary<'GTC' | 'FOK' | 'FAK'> }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('cancel' as const), acct, pick: fc.integer({ min: 0, max: 1_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), acct }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelMarket' as const), acct, market, byToken: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 120_000 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('split' as const, 'merge' as const), acct, market, amount }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('deposit' as const, 'withdraw' as const), acct, amount }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), market }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('resume' as const), market }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), market, tick: fc.constantFrom(10_000, 1_000, 10_000, 100_000, 2_500, 7) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fees' as const), market, maker: fc.integer({ min: 0, max: 300 }), taker: fc.integer({ min: 0, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redeem' as const), acct, market }) },
];

export const opArb: fc.Arbitrary<Op> = fc.oneof(...tradingOps(classicMarket));

/** The neg-risk variant's ops: every classic op over all the markets, conversions, a question joining. */
export const negRiskOpArb: fc.Arbitrary<Op> = fc.oneof(
  ...tradingOps(anyMarket),
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('convert' as const), acct, indexSet, amount: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 80_000_000 }) }, { weight: 1, arbitrary: amount }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addQuestion' as const), how: fc.constantFrom<'list' | 'listAlone' | 'join'>('list', 'listAlone', 'join') }) },
);

/** Rare by design: a resolution ends a market's trading for the rest of the run. */
export const resolveArb: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('resolve' as const), market: classicMarket, winner: outcome });

/** The neg-risk variant's resolutions: any market (a second YES in the event is refused), or the event by its winner. */
const negRiskResolveArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resolve' as const), market: anyMarket, winner: outcome }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resolveEvent' as const), winner: fc.integer({ min: 0, max: 4 }) }) },
);

/**
 * A session: a long trading phase, then perhaps a resolution of one market, then a short tail in which
 * redeems, refused orders on the resolved market and further trading on the other happen.
 */
export const opsArb = (maxLength: number, variant: Variant = 'classic'): fc.Arbitrary<Op[]> => {
  const tail = variant === 'classic'
    ? fc.oneof(opArb, fc.record({ kind: fc.constant('redeem' as const), acct, market: classicMarket }))
    : fc.oneof(negRiskOpArb, fc.record({ kind: fc.constant('redeem' as const), acct, market: anyMarket }), negRiskResolveArb);
  return fc
    .tuple(
      fc.array(variant === 'classic' ? opArb : negRiskOpArb, { maxLength, size: 'max' }),
      fc.option(variant === 'classic' ? resolveArb : negRiskResolveArb, { freq: 3 }),
      fc.array(tail, { maxLength: Math.ceil(maxLength / 10), size: 'max' }),
    )
    .map(([trading, resolution, rest]) => (resolution === null ? trading : [...trading, resolution, ...rest]));
};

function listing(m: (typeof MARKETS)[number], time: number): Command {
  const event = 'questionIndex' in m ? { negRisk: true, negRiskMarketId: NEG_RISK_EVENT, questionIndex: m.questionIndex } : { negRisk: false };
  return { type: 'ListMarket', time, conditionId: m.conditionId, tokenIds: m.tokenIds, tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 30, ...event };
}

/**
 * The commands every run starts with: two markets (and in the neg-risk variant an event of three questions),
 * funded accounts holding full sets of each.
 */
export function genesis(variant: Variant = 'classic'): Command[] {
  const cmds: Command[] = [];
  const listed = MARKETS.filter((_, i) => (variant === 'classic' ? i < CLASSIC_MARKETS : i !== LATE_QUESTION));
  for (const m of listed) cmds.push(listing(m, START));
  for (const a of ACCOUNTS) {
    cmds.push({ type: 'Deposit', time: START, account: a, amount: 10_000_000_000 });
    for (const m of listed) cmds.push({ type: 'Split', time: START, account: a, conditionId: m.conditionId, amount: 500_000_000 });
  }
  return cmds;
}

/** Turns ops into commands. Order ids are numbered; cancels pick among the ids issued so far (or a bogus one). */
export function toCommands(ops: readonly Op[]): Command[] {
  let time = START;
  let next = 0;
  const issued: { id: string; acct: number }[] = [];
  const out: Command[] = [];
  for (const op of ops) {
    time += 7;
    switch (op.kind) {
      case 'place': {
        const m = MARKETS[op.market] ?? MARKETS[0];
        const qty = op.lots * 10_000;
        const price = op.priceMilli * 1_000;
        const cash = Math.round((qty * price) / 1_000_000);
        const id = `0xo${next++}`;
        issued.push({ id, acct: op.acct });
        out.push({
          type: 'PlaceOrder', time, orderId: id, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], owner: `key${op.acct}`, tokenId: m.tokenIds[op.outcome],
          side: op.side, makerAmount: op.side === 'BUY' ? cash : qty, takerAmount: op.side === 'BUY' ? qty : cash, orderType: op.orderType,
          postOnly: op.postOnly && (op.orderType === 'GTC' || op.orderType === 'GTD' || op.lots % 7 === 0),
          expiration: op.orderType === 'GTD' ? Math.floor(time / 1000) + op.lifetimeSec : 0, dedupeUntil: time + 300_000,
        });
        break;
      }
      case 'placeRaw': {
        const m = MARKETS[op.market] ?? MARKETS[0];
        const id = `0xr${next++}`;
        issued.push({ id, acct: op.acct });
        out.push({
          type: 'PlaceOrder', time, orderId: id, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], owner: `key${op.acct}`, tokenId: m.tokenIds[op.outcome],
          side: op.side, makerAmount: op.makerAmount, takerAmount: op.takerAmount, orderType: op.orderType, postOnly: false, expiration: 0, dedupeUntil: time + 300_000,
        });
        break;
      }
      case 'cancel': {
        const target = issued.length === 0 || op.pick % 10 === 9 ? { id: `0xunknown${op.pick}`, acct: op.acct } : issued[op.pick % issued.length];
        // Mostly the owner cancels; sometimes another account tries.
        const who = op.pick % 5 === 4 ? op.acct : (target?.acct ?? op.acct);
        out.push({ type: 'CancelOrder', time, orderId: target?.id ?? '0x', account: ACCOUNTS[who] ?? ACCOUNTS[0] });
        break;
      }
      case 'cancelAll':
        out.push({ type: 'CancelAll', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0] });
        break;
      case 'cancelMarket': {
        const m = MARKETS[op.market] ?? MARKETS[0];
        out.push(op.byToken
          ? { type: 'CancelMarketOrders', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], tokenId: m.tokenIds[op.acct % 2] }
          : { type: 'CancelMarketOrders', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], conditionId: m.conditionId });
        break;
      }
      case 'advance':
        time += op.ms;
        out.push({ type: 'AdvanceTime', time });
        break;
      case 'split':
      case 'merge':
        out.push({ type: op.kind === 'split' ? 'Split' : 'Merge', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId, amount: op.amount });
        break;
      case 'deposit':
      case 'withdraw':
        out.push({ type: op.kind === 'deposit' ? 'Deposit' : 'Withdraw', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], amount: op.amount });
        break;
      case 'pause':
      case 'resume':
        out.push({ type: op.kind === 'pause' ? 'PauseMarket' : 'ResumeMarket', time, conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId });
        break;
      case 'tick':
        out.push({ type: 'UpdateMarket', time, conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId, tickSize: op.tick });
        break;
      case 'fees':
        out.push({ type: 'UpdateMarket', time, conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId, makerFeeBps: op.maker, takerFeeBps: op.taker });
        break;
      case 'resolve':
        out.push({ type: 'ResolveMarket', time, conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId, winningOutcome: op.winner });
        break;
      case 'redeem':
        out.push({ type: 'Redeem', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], conditionId: (MARKETS[op.market] ?? MARKETS[0]).conditionId });
        break;
      case 'convert':
        out.push({ type: 'ConvertPositions', time, account: ACCOUNTS[op.acct] ?? ACCOUNTS[0], negRiskMarketId: NEG_RISK_EVENT, indexSet: op.indexSet, amount: op.amount });
        break;
      case 'addQuestion': {
        // The fourth question joins the event when listed, or is listed on its own and joins later.
        const late = MARKETS[LATE_QUESTION];
        if (op.how === 'list') out.push(listing(late, time));
        else if (op.how === 'listAlone') out.push({ type: 'ListMarket', time, conditionId: late.conditionId, tokenIds: late.tokenIds, tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 30, negRisk: true });
        else out.push({ type: 'JoinNegRiskEvent', time, conditionId: late.conditionId, negRiskMarketId: NEG_RISK_EVENT, questionIndex: late.questionIndex });
        break;
      }
      case 'resolveEvent':
        // Winner 4 names a market outside the event (refused).
        out.push({ type: 'ResolveNegRiskEvent', time, negRiskMarketId: NEG_RISK_EVENT, winningConditionId: (MARKETS[2 + op.winner] ?? MARKETS[0]).conditionId });
        break;
    }
  }
  return out;
}
