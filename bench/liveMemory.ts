// `npm run bench:live-memory`: what the in-memory read model (projections/live/) costs. The real engine makes
// a history (BENCH_ACCOUNTS taker accounts, 1 to 200 positions each, skewed towards few; one mint fill per
// position against 50 market makers; 20 open orders per 100 accounts), then the records are applied to a
// LiveState while the heap is measured (after forced collections; run with --expose-gc). Prints the heap in
// all and per account, per position held (without finished orders) and per finished order kept, and the
// apply rate (records/s, the rate of catching up from the log after a restart). Fills themselves are not
// kept: a million fills cost what their new positions and (up to the bound) finished orders cost. The last
// line is one JSON object.

import { DEFAULT_ENGINE_CONFIG, Engine, type Command } from '../engine/index.js';
import type { Submission } from '../host/engineHost.js';
import type { EventsRecord } from '../log/eventLog.js';
import { LiveState } from '../projections/live/liveState.js';
import { Rng } from './prng.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const MARKETS = 100;
const MAKERS = 50;
const USDC = 1_000_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const hex = (prefix: string, n: number, width: number): string => `0x${prefix}${n.toString(16).padStart(width - prefix.length, '0')}`;
const rng = new Rng(16);
const engine = new Engine();
let time = 1_800_000_000_000;
let pos = 0;
const records: EventsRecord[] = [];
const run = (c: Submission): void => {
  const command = { ...c, time: (time += 1) } as Command;
  records.push({ pos: (pos += 1), events: engine.apply(command) });
};

const markets = Array.from({ length: MARKETS }, (_, i) => ({ conditionId: hex('c0de', i, 64), tokenIds: [String(9_000_000 + 2 * i), String(9_000_001 + 2 * i)] as [string, string] }));
const tokens = markets.flatMap((m) => m.tokenIds.map((tokenId, outcome) => ({ tokenId, other: m.tokenIds[1 - outcome] as string })));
for (const m of markets) run({ type: 'ListMarket', conditionId: m.conditionId, tokenIds: m.tokenIds, tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
const makers = Array.from({ length: MAKERS }, (_, i) => hex('ee', i, 40));
const takers = Array.from({ length: ACCOUNTS }, (_, i) => hex('aa', i, 40));
for (const account of [...makers, ...takers]) run({ type: 'Deposit', account, amount: 1_000_000 * USDC });
let n = 0;
const place = (account: string, tokenId: string, cents: number, shares: number): Submission => ({
  type: 'PlaceOrder', orderId: hex('b0', (n += 1), 64), account, owner: 'bench', tokenId, side: 'BUY',
  makerAmount: (shares * cents * USDC) / 100, takerAmount: shares * USDC, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
});
let positions = 0;
for (const [k, account] of takers.entries()) {
  const breadth = 1 + Math.floor(199 * rng.next() ** 20);
  positions += breadth;
  for (let j = 0; j < breadth; j++) {
    const t = tokens[(k * 37 + j * 7) % tokens.length] as (typeof tokens)[number];
    const cents = 30 + rng.int(41);
    run(place(makers[rng.int(MAKERS)] as string, t.other, 100 - cents, 5));
    run(place(account, t.tokenId, cents, 5));
  }
  if (k % 5 === 0) for (let j = 0; j < 20; j++) run(place(account, (tokens[j] as (typeof tokens)[number]).tokenId, 1 + (j % 10), 10));
}
const fills = records.reduce((s, r) => s + r.events.filter((e) => e.type === 'TradeExecuted').length, 0);
const open = engine.state.live.size();

const before = heap();
// First with no finished order kept (positions, open orders, markets alone), then as served (the default bound).
const bare = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, maxFinishedOrders: 0 });
for (const r of records) bare.apply(r);
const middle = heap();
const bareBytes = middle - before;
const state = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount });
const t0 = performance.now();
for (const r of records) state.apply(r);
const applyMs = performance.now() - t0;
const bytes = heap() - middle;
const finishedKept = state.byId.size - open;
const perFinished = (bytes - bareBytes) / Math.max(1, finishedKept);
// Positions: takers' and the makers' (each maker holds most tokens), the fee account's none (no fees).
let held = 0;
for (const m of state.positions.positions.values()) held += m.size;
const perPosition = bareBytes / held;
console.log(`history: ${ACCOUNTS} taker accounts + ${MAKERS} makers, ${positions} taker positions (${held} positions in all), ${fills} fills, ${open} open orders, ${finishedKept} finished orders kept (bound ${state.byId.size - open >= 200_000 ? 'reached' : 'not reached'}), ${records.length} records`);
console.log(`in-memory read model heap: ${(bytes / 1e6).toFixed(1)} MB in all = ${(bytes / (ACCOUNTS + MAKERS)).toFixed(0)} B per account; without finished orders ${(bareBytes / 1e6).toFixed(1)} MB = ${perPosition.toFixed(0)} B per position held (open orders and markets included); ${perFinished.toFixed(0)} B per finished order kept`);
console.log(`apply: ${records.length} records in ${applyMs.toFixed(0)} ms = ${Math.round(records.length / (applyMs / 1000))} records/s`);
console.log(JSON.stringify({ bench: 'live-memory', accounts: ACCOUNTS + MAKERS, positions: held, fills, openOrders: open, finishedOrdersKept: finishedKept, heapBytes: bytes, bytesPerAccount: Math.round(bytes / (ACCOUNTS + MAKERS)), bytesPerPosition: Math.round(perPosition), bytesPerFinishedOrder: Math.round(perFinished), heapBytesWithoutFinished: bareBytes, recordsPerSecond: Math.round(records.length / (applyMs / 1000)) }));
