// `npm run bench:resting-memory`: what one resting order costs in memory, part by part, in one process of the
// service: the engine (books and reservations), the snapshot thread's copy of the engine (restored from the
// engine's export, as the copy is seeded: host/snapshotWorker.ts), the in-memory read model (projections/live/,
// applying the records as decoded from the log) and an API node's copy of the read model (restored from the
// model's snapshot bytes, as seeded). The real engine places BENCH_ORDERS (100,000) GTC bids that never cross,
// from 1,000 accounts over 20 markets; each part's heap is measured after forced collections, less the same
// part holding the accounts and markets alone, and divided by the resting orders. The parts run in one heap
// here; in the service the copies live on the snapshot thread's heap, which a process's RSS adds up.
// The projector's open orders (projections/builders/orders.ts) are measured too: the single process holds them
// beside the read model's; and the WebSocket publisher's (api/ws/userOrders.ts), which the single process and
// every API node hold for the orders someone watches (here: the key that placed them all); and the notifications' (projections/notifications/), held on the request thread and by
// their copy on the snapshot thread. Each part decodes the records itself, so each counts its own copies of the
// ids; the request thread's four (engine, read model, notifications, publisher) are also measured together as the
// service holds them, fed the engine's event objects. The last line is one JSON object: {bench: 'resting-memory', orders, bytesPerOrder:
// {engine, engineCopy, readModel, projector, publisher, notifications, requestThread, requestThreadUnwatched, readModelCopy,
// singleProcess, apiNode}} (the single process and the API node with the publisher following every order).

import { DEFAULT_ENGINE_CONFIG, Engine, exportSnapshot, restoreSnapshot, type Command, type EngineSnapshot } from '../engine/index.js';
import type { Submission } from '../host/engineHost.js';
import { decodeCommand, decodeEvents, decodeRecord, encodeRecord } from '../log/recordCodec.js';
import { StreamPublisher } from '../api/ws/streamPublisher.js';
import { NotificationState } from '../projections/notifications/notificationState.js';
import { LiveState } from '../projections/live/liveState.js';
import { readSnapshot, restoreSnapshot as restoreLive, snapshotBytes } from '../projections/live/liveSnapshot.js';
import { OrdersBuilder, type FillOrders } from '../projections/builders/orders.js';
import { DiscardRows } from '../projections/rows.js';
import { collectedHeap, hexId } from './collectedHeap.js';

/** A fan-out with no subscriber: the publisher builds no message. */
const NOBODY = { publish: (): void => {}, subscribers: (): number => 0 };
/** The key every order of the history is placed with. */
const OWNER = 'bench';

/** A publisher following every order: the key that placed them watched (as while it has a user connection). */
function watchingPublisher(engine: Engine): StreamPublisher {
  const publisher = new StreamPublisher({ engine, fanout: NOBODY, catalog: () => undefined, clock: () => 0 });
  publisher.watchKey(OWNER);
  return publisher;
}

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const ACCOUNTS = 1_000;
const MARKETS = 20;
const USDC = 1_000_000;

/** The records of a history as encoded bytes (outside the JS heap), made by an engine that is then dropped. */
function history(orders: number): Buffer[] {
  const engine = new Engine();
  let time = 1_800_000_000_000;
  let pos = 0;
  const out: Buffer[] = [];
  const run = (c: Submission): void => {
    const command = { ...c, time: (time += 1) } as Command;
    const events = engine.apply(command);
    if (events.some((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected')) throw new Error(`refused: ${JSON.stringify(events)}`);
    out.push(encodeRecord({ pos: (pos += 1), command, events }));
  };
  const tokens: string[] = [];
  for (let i = 0; i < MARKETS; i++) {
    const tokenIds: [string, string] = [String(7_000_000 + 2 * i), String(7_000_001 + 2 * i)];
    tokens.push(tokenIds[0]);
    run({ type: 'ListMarket', conditionId: hexId('c1', i, 64), tokenIds, tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  }
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => hexId('ac', i, 40));
  for (const account of accounts) run({ type: 'Deposit', account, amount: 1_000_000 * USDC });
  for (let n = 1; n <= orders; n++) {
    // Bids at 1-40 cents, never an ask: every order rests.
    const cents = 1 + (n % 40);
    run({
      type: 'PlaceOrder', orderId: hexId('0d', n, 64), account: accounts[n % ACCOUNTS] as string, owner: OWNER, tokenId: tokens[n % MARKETS] as string, side: 'BUY',
      makerAmount: (5 * cents * USDC) / 100, takerAmount: 5 * USDC, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
    });
  }
  return out;
}

function replay(records: readonly Buffer[]): Engine {
  const engine = new Engine();
  for (const bytes of records) engine.apply(decodeCommand(bytes).command);
  return engine;
}

const setupOnly = history(0);
const full = history(ORDERS);
const options = { feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount };
const kept: unknown[] = [];

/** Heap of what `make` returns, kept reachable: its bytes with the orders less its bytes without them. */
function measure(make: (records: readonly Buffer[]) => unknown): number {
  const h0 = collectedHeap();
  const without = make(setupOnly);
  kept.push(without);
  const h1 = collectedHeap();
  const withOrders = make(full);
  kept.push(withOrders);
  const h2 = collectedHeap();
  return (h2 - h1 - (h1 - h0)) / ORDERS;
}

const engineBytes = measure(replay);
const resting = (kept[kept.length - 1] as Engine).state.live.size();
if (resting !== ORDERS) throw new Error(`${resting} orders rest, not ${ORDERS}`);
const copyBytes = measure((records) => {
  const json = JSON.stringify(exportSnapshot(replay(records)));
  return restoreSnapshot(JSON.parse(json) as EngineSnapshot);
});
// The replayed engines made above for the copies are garbage by now: only the restored copies stay.
const live = (records: readonly Buffer[]): LiveState => {
  const state = new LiveState(options);
  for (const bytes of records) state.apply(decodeEvents(bytes));
  return state;
};
const liveBytes = measure(live);
const projectorBytes = measure((records) => {
  const orders = new OrdersBuilder();
  const sink = new DiscardRows();
  const fills: FillOrders[] = [];
  for (const bytes of records) orders.apply(decodeEvents(bytes), sink, fills);
  return orders;
});
// The WebSocket publisher's open orders (api/ws/userOrders.ts: each order's owner, status and trades), following
// every order; its engine is an empty one, the same in both measurements.
const publisherBytes = measure((records) => {
  const publisher = watchingPublisher(new Engine());
  for (const bytes of records) publisher.publish([decodeRecord(bytes)]);
  return publisher;
});
// The notifications' open orders (what a cancellation's notification shows), held on the request thread and again
// by their copy on the snapshot thread (which decodes the records it follows, as here).
const notificationsBytes = measure((records) => {
  const state = new NotificationState();
  for (const bytes of records) state.apply(decodeEvents(bytes));
  return state;
});
// The request thread's parts as the service holds them: one engine makes the events, and the read model and the
// publisher are given those same objects (their ids are the engine's strings, not copies of their own); with the
// publisher following every order, and with nobody watching the streams.
function requestThread(watching: boolean): number {
  return measure((records) => {
    const engine = new Engine();
    const state = new LiveState(options);
    const publisher = watching ? watchingPublisher(engine) : new StreamPublisher({ engine, fanout: NOBODY, catalog: () => undefined, clock: () => 0 });
    const notifications = new NotificationState();
    for (const bytes of records) {
      const { pos, command } = decodeCommand(bytes);
      const events = engine.apply(command);
      state.apply({ pos, events });
      notifications.apply({ pos, events });
      publisher.publish([{ pos, command, events }]);
    }
    return [engine, state, notifications, publisher];
  });
}
const requestThreadBytes = requestThread(true);
const requestThreadUnwatchedBytes = requestThread(false);
const liveCopyBytes = measure((records) => {
  const bytes = snapshotBytes(live(records));
  const state = new LiveState(options);
  restoreLive(readSnapshot(bytes), state);
  return state;
});

const round = (n: number): number => Math.round(n);
const perOrder = {
  engine: round(engineBytes),
  engineCopy: round(copyBytes),
  readModel: round(liveBytes),
  projector: round(projectorBytes),
  publisher: round(publisherBytes),
  notifications: round(notificationsBytes),
  requestThread: round(requestThreadBytes),
  requestThreadUnwatched: round(requestThreadUnwatchedBytes),
  readModelCopy: round(liveCopyBytes),
  // The request thread's parts together (their strings shared), and each thread's parts of its own.
  singleProcess: round(requestThreadBytes + copyBytes + notificationsBytes + projectorBytes),
  apiNode: round(requestThreadBytes + copyBytes + notificationsBytes + liveCopyBytes),
};
console.log(`${ORDERS} resting orders (GTC bids from ${ACCOUNTS} accounts over ${MARKETS} markets), JS heap per resting order after forced collections:`);
console.log('| part | bytes per resting order |');
console.log('|---|---|');
console.log(`| engine (books, order, reservation) | ${perOrder.engine} |`);
console.log(`| the snapshot thread's copy of the engine | ${perOrder.engineCopy} |`);
console.log(`| in-memory read model (open order, by id and by account) | ${perOrder.readModel} |`);
console.log(`| the projector's open orders (OrdersBuilder; the single process and the projector role) | ${perOrder.projector} |`);
console.log(`| the WebSocket publisher's open orders, following every order (the single process and API nodes; none with nobody watching) | ${perOrder.publisher} |`);
console.log(`| the notifications' open orders (the request thread, and their copy on the snapshot thread) | ${perOrder.notifications} |`);
console.log(`| the request thread's engine, read model, notifications and publisher (following every order), sharing the engine's strings as in the service | ${perOrder.requestThread} |`);
console.log(`| the same four with nobody watching the streams (the publisher follows no order) | ${perOrder.requestThreadUnwatched} |`);
console.log(`| an API node's copy of the read model on its snapshot thread | ${perOrder.readModelCopy} |`);
console.log(`| the single process: the request thread's four, the snapshot thread's copies of the engine and the notifications, the projector | ${perOrder.singleProcess} |`);
console.log(`| an API node: the request thread's four (replica first), the snapshot thread's copies of the replica, the notifications and the read model | ${perOrder.apiNode} |`);
console.log(JSON.stringify({ bench: 'resting-memory', orders: ORDERS, bytesPerOrder: perOrder, kept: kept.length }));
