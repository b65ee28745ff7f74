// The engine's hot-path shortcuts against the plain definitions they replace: exact mul-div in numbers
// against BigInt, trade ids from the per-engine formatter against tradeIdFor, the packed and derived order
// terms against what the order was built with, the finished-id ring (wrap-around, growth, pruning order),
// an account's open-order list against a set, and the order-id hash table (colliding hashes, removal
// across the wrap-around, growth) against a Map.

import t from 'tap';
import fc from 'fast-check';
import { mulDivCeil, mulDivFloor, tradeIdFor, MAX_ORDER_AMOUNT, PRICE_ONE } from '../../engine/index.js';
import { TradeIds } from '../../engine/events.js';
import { Order } from '../../engine/order.js';
import { OrderIds, type DoneStatus } from '../../engine/orderIds.js';
import { OrderIdTable } from '../../engine/orderIdTable.js';
import { orderIdHash } from '../../engine/orderIdHash.js';
import { Account } from '../../engine/ledger.js';
import { Market } from '../../engine/market.js';
import { ASK, BID } from '../../engine/book/orderBook.js';
import { fastBookFactory } from '../../engine/book/fastBook.js';
import type { OrderType, Outcome, Side } from '../../engine/index.js';

const amount = fc.oneof(
  fc.integer({ min: 0, max: 10_000 }),
  fc.integer({ min: 0, max: MAX_ORDER_AMOUNT }),
  fc.integer({ min: 2 ** 45 - 5, max: 2 ** 45 + 5 }),
  fc.integer({ min: 2 ** 51 - 5, max: 2 ** 51 + 5 }),
);
const divisor = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: MAX_ORDER_AMOUNT }), fc.integer({ min: 2 ** 51 - 3, max: 2 ** 51 + 3 }));

t.test('mulDivFloor and mulDivCeil equal BigInt floor and ceiling', async (t) => {
  fc.assert(
    fc.property(amount, fc.oneof(fc.constant(PRICE_ONE), amount), divisor, (a, b, c) => {
      const product = BigInt(a) * BigInt(b);
      const floor = Number(product / BigInt(c));
      const ceil = Number((product + BigInt(c) - 1n) / BigInt(c));
      return mulDivFloor(a, b, c) === floor && mulDivCeil(a, b, c) === ceil;
    }),
    { numRuns: 20_000 },
  );
  t.equal(mulDivFloor(7, PRICE_ONE, 3), 2_333_333);
  t.equal(mulDivCeil(7, PRICE_ONE, 3), 2_333_334);
  t.equal(mulDivCeil(6, PRICE_ONE, 3), 2_000_000, 'exact quotients are not rounded up');
});

t.test('TradeIds gives tradeIdFor of every sequence number, in order or not', async (t) => {
  const ids = new TradeIds();
  for (let seq = 1; seq < 70_000; seq += 1) if (ids.idFor(seq) !== tradeIdFor(seq)) t.fail(`seq ${seq}`);
  for (const seq of [0, 255, 256, 65_535, 65_536, 2 ** 31, 2 ** 32 + 7, 2 ** 47, 2 ** 48 - 1, 2 ** 48, 2 ** 52 + 1, 300, 2 ** 40]) {
    t.equal(ids.idFor(seq), tradeIdFor(seq), `seq ${seq}`);
  }
});

t.test('an order reads back the terms it was built with', async (t) => {
  const market = new Market('0xm', ['1', '2'], { tickSize: 100, minSize: 10_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false }, fastBookFactory());
  const account = new Account('0xa');
  for (const outcome of [0, 1] as Outcome[]) {
    for (const side of ['BUY', 'SELL'] as Side[]) {
      for (const bookSide of [BID, ASK] as const) {
        for (const orderType of ['GTC', 'GTD', 'FOK', 'FAK'] as OrderType[]) {
          for (const postOnly of [false, true]) {
            const o = new Order('o', account, 'k', market, outcome, side, 400_000, bookSide, 10_000, orderType, postOnly, 0, 0, 1, 0, orderIdHash('o', 0));
            const terms = [o.outcome, o.side, o.bookSide, o.orderType, o.postOnly, o.tokenId, o.bookPrice, o.inAccount];
            const built = [outcome, side, bookSide, orderType, postOnly, outcome === 0 ? '1' : '2', outcome === 0 ? 400_000 : 600_000, false];
            if (JSON.stringify(terms) !== JSON.stringify(built)) t.fail(`${JSON.stringify(terms)} != ${JSON.stringify(built)}`);
          }
        }
      }
    }
  }
  t.throws(() => new Order('o', account, 'k', market, 0, 'BUY', 1, BID, 1, 'IOC' as OrderType, false, 0, 0, 1, 0, orderIdHash('o', 0)));
});

t.test('finished ids are forgotten oldest first across ring wrap-around and growth', async (t) => {
  const ids = new OrderIds();
  const expected: [string, DoneStatus, number, number][] = [];
  let now = 0;
  let forgotten = 0;
  const statuses: DoneStatus[] = ['MATCHED', 'CANCELED', 'EXPIRED', 'CANCELED_MARKET_RESOLVED'];
  // Remember and prune in waves, so the ring's head moves around it and it grows while wrapped.
  for (let wave = 0; wave < 6; wave++) {
    for (let i = 0; i < 700 * (wave + 1); i++) {
      const id = `w${wave}-${i}`;
      const until = now + 10 + (i % 7); // not monotonic: a later id may expire sooner, yet waits its turn
      const signedAt = i % 5 === 0 ? -1 : until - 10; // some of unknown signing time (orders of older logs)
      const status = statuses[i % statuses.length] as DoneStatus;
      ids.remember(id, status, until, signedAt);
      expected.push([id, status, until, signedAt]);
    }
    now += 12;
    ids.prune(now);
    while (expected.length > 0 && (expected[0] as [string, DoneStatus, number, number])[2] <= now) {
      forgotten = Math.max(forgotten, (expected.shift() as [string, DoneStatus, number, number])[3]);
    }
    t.same(ids.done.entries(), expected, `wave ${wave}: entries in insertion order`);
    t.equal(ids.done.size(), expected.length);
    t.equal(ids.forgottenThrough, forgotten, `wave ${wave}: the horizon is the latest signing time forgotten`);
    for (const [id, status] of expected.slice(0, 50)) {
      if (!ids.known(id) || ids.done.get(id) !== status) t.fail(`${id} should still be refused as ${status}`);
    }
  }
  t.notOk(ids.known('w0-0'), 'the oldest ids are forgotten');
});

t.test('an account\'s open orders: adding, removing from anywhere and membership', async () => {
  const market = new Market('0xm', ['1', '2'], { tickSize: 100, minSize: 10_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false }, fastBookFactory());
  const account = new Account('0xa');
  const other = new Account('0xb');
  const orders = Array.from({ length: 50 }, (_, i) => new Order(`o${i}`, account, 'k', market, 0, 'BUY', 400_000, BID, 10_000, 'GTC', false, 0, 0, i, 0, orderIdHash(`o${i}`, 0)));
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 49 })), { maxLength: 200 }), (steps) => {
      const model = new Set<Order>();
      for (const o of orders) account.orders.delete(o);
      for (const [add, i] of steps) {
        const o = orders[i] as Order;
        if (add) {
          account.orders.add(o);
          model.add(o);
        } else {
          account.orders.delete(o);
          model.delete(o);
        }
        if (account.orders.size !== model.size || other.orders.has(o)) return false;
      }
      const listed = [...account.orders];
      return listed.length === model.size && listed.every((o) => model.has(o) && account.orders.has(o) && o.inAccount) && orders.every((o) => model.has(o) === o.inAccount);
    }),
  );
});

t.test('an order keeps its dedupeUntil exactly in two small integers', async (t) => {
  const market = new Market('0xm', ['1', '2'], { tickSize: 100, minSize: 10_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false }, fastBookFactory());
  const account = new Account('0xa');
  for (const until of [0, 1, 2 ** 30 - 1, 2 ** 30, 2 ** 30 + 1, 1_700_000_060_941, 2 ** 52 - 1, 2 ** 52 - 2 ** 30]) {
    t.equal(new Order('o', account, 'k', market, 0, 'BUY', 400_000, BID, 10_000, 'GTC', false, 0, 0, 1, until, orderIdHash('o', 0)).dedupeUntil, until);
  }
});

t.test('orderIdHash: never 0, the same for equal ids, spread over the low bits for EIP-712 hashes', async (t) => {
  t.equal(orderIdHash('0x' + 'ab'.repeat(32), 5), orderIdHash(['0x', 'ab'.repeat(32)].join(''), 5), 'equal strings, equal hashes');
  fc.assert(fc.property(fc.string({ maxLength: 80 }), fc.integer(), (id, key) => orderIdHash(id, key) !== 0 && orderIdHash(id, key) === (orderIdHash(id, key) | 0)));
  // 2^16 random canonical ids into 2^17 slots: a good hash leaves short linear-probing runs.
  const hex = '0123456789abcdef';
  const rng = fc.sample(fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 64, maxLength: 64 }), { seed: 7, numRuns: 65_536 });
  const slots = new Uint8Array(2 ** 17);
  let probes = 0;
  for (const digits of rng) {
    const id = '0x' + digits.map((d) => hex[d]).join('');
    let at = orderIdHash(id, 0x5bd1e995) & (slots.length - 1);
    while (slots[at] !== 0) {
      at = (at + 1) & (slots.length - 1);
      probes += 1;
    }
    slots[at] = 1;
  }
  t.ok(probes / rng.length < 1, `mean extra probes ${(probes / rng.length).toFixed(2)} at half load (ideal 0.5)`);
});

t.test('the order-id table equals a Map under inserts, finds and removals with colliding hashes', async () => {
  // Hashes from a few values that share home slots near the end of the table, so runs wrap around index 0,
  // and removals must move entries back across the wrap.
  const hashOf = (id: string): number => (1016 + (Number(id.slice(1)) % 11)) | (Number(id.slice(1)) % 3 === 0 ? 0 : 1 << 20);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 700 })), { maxLength: 1500 }), (steps) => {
      const table = new OrderIdTable();
      const model = new Map<string, number>();
      for (const [add, n] of steps) {
        const id = `i${n}`;
        const h = hashOf(id);
        const at = table.find(id, h);
        if ((at >= 0) !== model.has(id)) return false;
        if (add && at < 0) {
          table.setDone(table.insert(h, id), id, n % 4);
          model.set(id, n % 4);
        } else if (!add && at >= 0) {
          table.removeAt(at);
          model.delete(id);
        }
      }
      for (let n = 0; n <= 700; n++) {
        const id = `i${n}`;
        const at = table.find(id, hashOf(id));
        if (at >= 0 ? table.refAt(at) !== id || table.codeAt(at) !== model.get(id) : model.has(id)) return false;
      }
      return true;
    }),
    { numRuns: 300 },
  );
});

t.test('order ids: open, finish, remember and prune equal a plain Map model', async () => {
  const market = new Market('0xm', ['1', '2'], { tickSize: 100, minSize: 10_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false }, fastBookFactory());
  const account = new Account('0xa');
  const statuses: DoneStatus[] = ['MATCHED', 'CANCELED', 'EXPIRED', 'CANCELED_MARKET_RESOLVED'];
  const step = fc.record({ kind: fc.integer({ min: 0, max: 3 }), n: fc.integer({ min: 0, max: 300 }), until: fc.integer({ min: 0, max: 40 }), status: fc.integer({ min: 0, max: 3 }) });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 600 }), (steps) => {
      const ids = new OrderIds();
      const model = new Map<string, Order | DoneStatus>();
      const ring: [string, number][] = [];
      let now = 0;
      let priority = 0;
      for (const { kind, n, until, status } of steps) {
        const id = `0x${n}`;
        const held = model.get(id);
        if (kind === 0 && held === undefined) {
          const order = new Order(id, account, 'k', market, 0, 'BUY', 400_000, BID, 10_000, 'GTC', false, 0, 0, ++priority, now + until, orderIdHash(id, 0));
          ids.open(order);
          model.set(id, order);
        } else if (kind === 1 && typeof held === 'object') {
          // An open order finishes: remembered until its dedupeUntil, or forgotten when that has passed.
          const s = statuses[status] as DoneStatus;
          ids.finish(held, s, true, held.dedupeUntil, now);
          if (held.dedupeUntil > now) {
            model.set(id, s);
            ring.push([id, held.dedupeUntil]);
          } else model.delete(id);
        } else if (kind === 2 && held === undefined) {
          // A taker that never rested.
          const s = statuses[status] as DoneStatus;
          const order = new Order(id, account, 'k', market, 0, 'BUY', 400_000, BID, 10_000, 'FAK', false, 0, 0, ++priority, now + until, orderIdHash(id, 0));
          ids.finish(order, s, false, order.dedupeUntil, now);
          if (order.dedupeUntil > now) {
            model.set(id, s);
            ring.push([id, order.dedupeUntil]);
          }
        } else if (kind === 3) {
          now += until % 5;
          ids.prune(now);
          while (ring.length > 0 && (ring[0] as [string, number])[1] <= now) model.delete((ring.shift() as [string, number])[0]);
        }
        if (ids.live.size() !== [...model.values()].filter((v) => typeof v === 'object').length || ids.done.size() !== ring.length) return false;
      }
      for (let n = 0; n <= 300; n++) {
        const id = `0x${n}`;
        if (ids.lookup(id) !== model.get(id) || ids.known(id) !== model.has(id)) return false;
      }
      const liveIds = [...model.values()].filter((v): v is Order => typeof v === 'object').sort((a, b) => a.priority - b.priority).map((o) => o.id);
      return JSON.stringify(ids.live.keys()) === JSON.stringify(liveIds) && JSON.stringify(ids.done.entries().map(([id]) => id)) === JSON.stringify(ring.map(([id]) => id));
    }),
    { numRuns: 300 },
  );
});
