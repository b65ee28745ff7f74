// `npm run bench:live-memory`: what the in-memory read model (projections/live/) costs. The real engine makes
// a history (BENCH_ACCOUNTS taker accounts, 1 to 200 positions each, skewed towards few; one mint fill per
// position against 50 market makers; 20 open orders per 100 accounts), then the records are applied to a
// LiveState while the heap is measured (after forced collections; run with --expose-gc), three times: with
// no finished order and no fill kept (positions, open orders, markets), with the fill windows (default
// bounds; every fill of this history fits), and as served (finished orders too). Prints the heap in all and
// per account, per position held, per fill held and per finished order kept; what an account's window costs
// beside its fills (measured on synthetic fills between fresh accounts); and the apply rate (records/s, the
// rate of catching up from the log after a restart). With BENCH_RESTORE (default true) the history is also
// projected into a fresh embedded ClickHouse and the model restored from it, timed (a restart's start-up); and
// the model as served is snapshotted as an API node does and restored from the snapshot, timed; and an API
// node's copy of it on the snapshot thread is seeded and a snapshot taken from it (the time it holds the
// caller's thread, the time to the file, its heap).
// The last line is one JSON object.

import { DEFAULT_ENGINE_CONFIG, Engine, type Command } from '../engine/index.js';
import type { Submission } from '../host/engineHost.js';
import type { LogRecord } from '../log/eventLog.js';
import { decodeEvents, encodeRecord } from '../log/recordCodec.js';
import { LiveState } from '../projections/live/liveState.js';
import { restoreLive } from '../projections/live/liveRestore.js';
import { readSnapshot, restoreSnapshot, snapshotBytes } from '../projections/live/liveSnapshot.js';
import { DEFAULT_MAX_ACCOUNT_FILLS, DEFAULT_MAX_FILLS, FillWindows } from '../projections/live/fillWindows.js';
import { restoreFills } from '../projections/live/fillsRestore.js';
import { Projector } from '../projections/projector.js';
import { Journal } from '../log/journal/journal.js';
import { openClickHouse } from '../storage/clickhouse.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SnapshotStore } from '../host/snapshotStore.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from './prng.js';
import { collectedHeap, hexId } from './collectedHeap.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const RESTORE = process.env.BENCH_RESTORE !== 'false';
const MARKETS = 100;
const MAKERS = 50;
const USDC = 1_000_000;

/** The history, made by the engine (which is garbage once this returns: it is no part of what is measured). */
function makeHistory(): { records: LogRecord[]; positions: number; open: number } {
  const rng = new Rng(16);
  const engine = new Engine();
  let time = 1_800_000_000_000;
  let pos = 0;
  const records: LogRecord[] = [];
  const run = (c: Submission): void => {
    const command = { ...c, time: (time += 1) } as Command;
    records.push({ pos: (pos += 1), command, events: engine.apply(command) });
  };
  const markets = Array.from({ length: MARKETS }, (_, i) => ({ conditionId: hexId('c0de', i, 64), tokenIds: [String(9_000_000 + 2 * i), String(9_000_001 + 2 * i)] as [string, string] }));
  const tokens = markets.flatMap((m) => m.tokenIds.map((tokenId, outcome) => ({ tokenId, other: m.tokenIds[1 - outcome] as string })));
  for (const m of markets) run({ type: 'ListMarket', conditionId: m.conditionId, tokenIds: m.tokenIds, tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  const makers = Array.from({ length: MAKERS }, (_, i) => hexId('ee', i, 40));
  const takers = Array.from({ length: ACCOUNTS }, (_, i) => hexId('aa', i, 40));
  // What each needs (a taker's buys cost at most 700 USDC): the engine refuses deposits beyond MAX_BALANCE in all.
  for (const account of makers) run({ type: 'Deposit', account, amount: 1_000_000 * USDC });
  for (const account of takers) run({ type: 'Deposit', account, amount: 10_000 * USDC });
  let n = 0;
  const place = (account: string, tokenId: string, cents: number, shares: number): Submission => ({
    type: 'PlaceOrder', orderId: hexId('b0', (n += 1), 64), account, owner: 'bench', tokenId, side: 'BUY',
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
  const refused = records.find((r) => r.events.some((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected'));
  if (refused !== undefined) throw new Error(`the engine refused a command of the history: ${JSON.stringify(refused.events)}`);
  return { records, positions, open: engine.state.live.size() };
}

const { records, positions, open } = makeHistory();
const fills = records.reduce((s, r) => s + r.events.filter((e) => e.type === 'TradeExecuted').length, 0);
// Applied as read from the log: each record decoded afresh (so the state's strings are its own, as in
// production), from encoded bytes outside the heap.
const encoded = records.map(encodeRecord);
const applyAll = (state: LiveState): void => {
  for (const bytes of encoded) state.apply(decodeEvents(bytes));
};
/** Every state measured stays reachable to the end: the heap grows by each in turn. */
const kept: LiveState[] = [];

const before = collectedHeap();
// First with no finished order and no fill kept (positions, open orders, markets alone), then with the fill
// windows, then as served (the default bounds of both).
const bare = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, maxFinishedOrders: 0, maxFills: 0 });
applyAll(bare);
kept.push(bare);
const afterBare = collectedHeap();
const bareBytes = afterBare - before;
const withFills = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, maxFinishedOrders: 0 });
applyAll(withFills);
kept.push(withFills);
const afterFills = collectedHeap();
const fillBytes = afterFills - afterBare - bareBytes;
const fillsHeld = withFills.fills.size;
const windows = withFills.fills.accountCount;
// The count bound alone, for the memory of a full window (the history's commands are 1 ms apart, its time no venue's).
const state = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, finishedOrderAgeMs: 0 });
const t0 = performance.now();
applyAll(state);
const applyMs = performance.now() - t0;
kept.push(state);
const bytes = collectedHeap() - afterFills;
const finishedKept = state.finishedCount;
const perFinished = (bytes - bareBytes - fillBytes) / Math.max(1, finishedKept);
const perFill = fillBytes / Math.max(1, fillsHeld);
// Positions: takers' and the makers' (each maker holds most tokens), the fee account's none (no fees).
let held = 0;
for (const m of state.positions.positions.values()) held += m.size;
const perPosition = bareBytes / held;

/** An account's window beside its fills: synthetic fills between fresh accounts, less the same fills between two. */
function windowBytes(count: number): number {
  const fillsOf = (pairs: boolean): FillWindows => {
    const w = new FillWindows({ maxAccountFills: 1_000_000, maxFills: 1_000_000 });
    for (let i = 0; i < count; i++) {
      const taker = pairs ? hexId('a1', i, 40) : hexId('a1', 0, 40);
      const maker = pairs ? hexId('b1', i, 40) : hexId('b1', 0, 40);
      w.add(`00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, 1_800_000_000_000 + i, 'c', 5_000_000, 0, hexId('0a', i, 64), taker, 'k', 't0', 0, 'BUY', 500_000, 0, 2_500_000, hexId('0b', i, 64), maker, 'k', 't1', 1, 'BUY', 500_000, 0, 2_500_000);
    }
    return w;
  };
  const start = collectedHeap();
  const two = fillsOf(false);
  const twoBytes = collectedHeap() - start;
  const many = fillsOf(true);
  const manyBytes = collectedHeap() - start - twoBytes;
  if (two.size + many.size !== 2 * count) throw new Error('synthetic fills were not all held');
  return (manyBytes - twoBytes) / (2 * count);
}
const perWindow = windowBytes(100_000);

/** The history projected into a fresh embedded ClickHouse, then the model restored from it as a restart does. */
async function timeRestore(): Promise<{ ms: number; fillsMs: number; fills: number; projectMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'live-memory-'));
  try {
    const journal = await Journal.open({ dir: join(dir, 'log'), segmentBytes: 64 << 20 });
    for (let i = 0; i < records.length; i += 1_000) await journal.append(records.slice(i, i + 1_000));
    const ch = await openClickHouse({ mode: 'embedded', dataDir: dir, url: '', user: '', password: '', database: 'bench' });
    const projector = new Projector(ch, 'bench', journal, { feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount });
    await projector.start();
    const p0 = performance.now();
    await projector.catchUp();
    const projectMs = performance.now() - p0;
    const restored = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount });
    const r0 = performance.now();
    await restoreLive(ch, 'bench', projector.position, restored);
    const ms = performance.now() - r0;
    const f0 = performance.now();
    await restoreFills(ch, 'bench', projector.position, new FillWindows({ maxAccountFills: DEFAULT_MAX_ACCOUNT_FILLS, maxFills: DEFAULT_MAX_FILLS }));
    const fillsMs = performance.now() - f0;
    await journal.close();
    await ch.close();
    return { ms, fillsMs, fills: restored.fills.size, projectMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const restore = RESTORE ? await timeRestore() : undefined;

/** The model as served, snapshotted as an API node does (taken and serialised at once) and restored from it. */
function timeSnapshot(): { ms: number; bytes: number; restoreMs: number } {
  const s0 = performance.now();
  const bytes = snapshotBytes(state);
  const ms = performance.now() - s0;
  const r0 = performance.now();
  const fresh = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount });
  restoreSnapshot(readSnapshot(bytes), fresh);
  const restoreMs = performance.now() - r0;
  if (fresh.fills.size !== state.fills.size || fresh.pos !== state.pos) throw new Error('the snapshot did not restore the model');
  return { ms, bytes: bytes.length, restoreMs };
}
const snapshot = timeSnapshot();

/**
 * The copy an API node keeps on its snapshot thread (host/snapshotStore.ts seedLive/takeLive): seeded from the
 * model's bytes beside a copy of the engine at the same position, then a snapshot taken from it. Timed: how
 * long the caller's thread is held to take one (posting a message), and until the file is written. Its heap is
 * that of the same restore on this thread (a model without finished orders and shown JSON, as the copy keeps).
 */
async function timeCopy(): Promise<{ heldMs: number; writtenMs: number; heapBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'live-copy-'));
  const store = new SnapshotStore(join(dir, 'snapshots'));
  try {
    const seed = snapshotBytes(state);
    const h0 = collectedHeap();
    const alike = new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, maxFinishedOrders: 0, maxShownJson: 0 });
    restoreSnapshot(readSnapshot(seed), alike);
    const heapBytes = collectedHeap() - h0;
    if (alike.fills.size !== state.fills.size) throw new Error('the restore did not hold every fill');
    const engine = new Engine();
    for (const r of records) engine.apply(r.command);
    if (!(await store.follow(state.pos, engine))) throw new Error('the snapshot thread did not start');
    await store.seedLive(state.pos, seed, join(dir, 'live', 'seed.v8'), { feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount })();
    const t0 = performance.now();
    const written = store.takeLive(state.pos, join(dir, 'live', 'taken.v8'));
    const heldMs = performance.now() - t0;
    await written();
    const writtenMs = performance.now() - t0;
    const copied = readSnapshot(readFileSync(join(dir, 'live', 'taken.v8')));
    if (copied.pos !== state.pos || copied.fills.length !== state.fills.size) throw new Error("the copy's snapshot is not the model's");
    return { heldMs, writtenMs, heapBytes };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const copy = await timeCopy();

if (kept.length !== 3) throw new Error('a measured state was not kept');
console.log(`history: ${ACCOUNTS} taker accounts + ${MAKERS} makers, ${positions} taker positions (${held} positions in all), ${fills} fills (${fillsHeld} held), ${open} open orders, ${finishedKept} finished orders kept (bound ${finishedKept >= 200_000 ? 'reached' : 'not reached'}), ${records.length} records`);
console.log(`in-memory read model heap: ${(bytes / 1e6).toFixed(1)} MB in all = ${(bytes / (ACCOUNTS + MAKERS)).toFixed(0)} B per account; without finished orders and fills ${(bareBytes / 1e6).toFixed(1)} MB = ${perPosition.toFixed(0)} B per position held (open orders and markets included); ${perFinished.toFixed(0)} B per finished order kept`);
console.log(`fill windows: ${fillsHeld} fills held in ${windows} windows: ${(fillBytes / 1e6).toFixed(1)} MB = ${perFill.toFixed(0)} B per fill held (its two windows' share included) = ${((perFill * 1e6) / 1e6).toFixed(0)} MB per million fills; an account's window beside its fills ${perWindow.toFixed(0)} B`);
console.log(`apply: ${records.length} records in ${applyMs.toFixed(0)} ms = ${Math.round(records.length / (applyMs / 1000))} records/s`);
console.log(`snapshot (an API node's): taken and serialised in ${(snapshot.ms / 1000).toFixed(2)} s, ${(snapshot.bytes / 1e6).toFixed(1)} MB; the model restored from it in ${(snapshot.restoreMs / 1000).toFixed(2)} s`);
console.log(`the copy on the snapshot thread (an API node's): a snapshot holds the node's thread ${copy.heldMs.toFixed(2)} ms and is written in ${(copy.writtenMs / 1000).toFixed(2)} s; the copy's heap ${(copy.heapBytes / 1e6).toFixed(0)} MB`);
if (restore !== undefined) console.log(`restore from ClickHouse (a restart): the model with ${restore.fills} fills in ${(restore.ms / 1000).toFixed(2)} s, of which the fills ${(restore.fillsMs / 1000).toFixed(2)} s (the history was projected in ${(restore.projectMs / 1000).toFixed(1)} s)`);
console.log(
  JSON.stringify({
    bench: 'live-memory', accounts: ACCOUNTS + MAKERS, positions: held, fills, openOrders: open, finishedOrdersKept: finishedKept, fillsHeld, fillWindows: windows, heapBytes: bytes,
    bytesPerAccount: Math.round(bytes / (ACCOUNTS + MAKERS)), bytesPerPosition: Math.round(perPosition), bytesPerFinishedOrder: Math.round(perFinished), bytesPerFill: Math.round(perFill),
    bytesPerWindow: Math.round(perWindow), heapBytesWithoutFinishedAndFills: bareBytes, recordsPerSecond: Math.round(records.length / (applyMs / 1000)),
    snapshotMs: Math.round(snapshot.ms), snapshotBytes: snapshot.bytes, snapshotRestoreMs: Math.round(snapshot.restoreMs),
    copySnapshotHeldMs: Number(copy.heldMs.toFixed(3)), copySnapshotWrittenMs: Math.round(copy.writtenMs), copyHeapBytes: copy.heapBytes,
    restoreMs: restore === undefined ? null : Math.round(restore.ms), restoreFillsMs: restore === undefined ? null : Math.round(restore.fillsMs), restoredFills: restore?.fills ?? null,
  }),
);
