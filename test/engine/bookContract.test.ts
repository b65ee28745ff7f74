// One contract suite for both order books (fast and reference), plus a differential property test: the
// same random adds, fills and removals on both give the same best orders, levels, priority lists and
// available quantities at every step.

import t from 'tap';
import fc from 'fast-check';
import { ASK, BID, type BookFactory, type BookSide, type OrderBook } from '../../engine/book/orderBook.js';
import { fastBookFactory } from '../../engine/book/fastBook.js';
import { referenceBookFactory } from '../../engine/book/referenceBook.js';
import { Account } from '../../engine/ledger.js';
import { Market } from '../../engine/market.js';
import { Order } from '../../engine/order.js';
import { orderIdHash } from '../../engine/orderIdHash.js';

const FACTORIES: [string, BookFactory][] = [['fast book', fastBookFactory], ['reference book', referenceBookFactory]];

function maker(book: OrderBook): (id: string, side: BookSide, price: number, size: number, priority: number) => Order {
  const market = new Market('0xm', ['1', '2'], { tickSize: 100, minSize: 10_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false }, book);
  const account = new Account('0xa');
  return (id, side, price, size, priority) =>
    new Order(id, account, 'k', market, 0, side === BID ? 'BUY' : 'SELL', price, side, size, 'GTC', false, 0, 0, priority, 0, orderIdHash(id, 0));
}

for (const [name, factory] of FACTORIES) {
  t.test(`${name}: an empty book`, async (t) => {
    const book = factory();
    t.equal(book.size, 0);
    t.equal(book.best(BID), undefined);
    t.equal(book.best(ASK), undefined);
    t.same(book.levels(BID), []);
    t.same(book.orders(ASK), []);
    t.equal(book.available(ASK, 999_900, 10), 0);
  });

  t.test(`${name}: price-time priority on both sides`, async (t) => {
    const book = factory();
    const o = maker(book);
    const orders = [o('b1', BID, 400_000, 10_000, 1), o('b2', BID, 410_000, 20_000, 2), o('b3', BID, 410_000, 30_000, 3), o('a1', ASK, 500_000, 10_000, 4), o('a2', ASK, 450_000, 50_000, 5), o('a3', ASK, 450_000, 10_000, 6)];
    for (const x of orders) book.add(x);
    t.equal(book.size, 6);
    t.equal(book.best(BID)?.id, 'b2', 'highest bid, earliest first');
    t.equal(book.best(ASK)?.id, 'a2', 'lowest ask, earliest first');
    t.same(book.orders(BID).map((x) => x.id), ['b2', 'b3', 'b1']);
    t.same(book.orders(ASK).map((x) => x.id), ['a2', 'a3', 'a1']);
    t.same(book.levels(BID), [{ price: 410_000, size: 50_000, orders: 2 }, { price: 400_000, size: 10_000, orders: 1 }]);
    t.same(book.levels(ASK, 1), [{ price: 450_000, size: 60_000, orders: 2 }]);
  });

  t.test(`${name}: remove, reduce and available`, async (t) => {
    const book = factory();
    const o = maker(book);
    const [x1, x2, x3, x4] = [o('x1', ASK, 300_000, 10_000, 1), o('x2', ASK, 300_000, 20_000, 2), o('x3', ASK, 300_000, 30_000, 3), o('x4', ASK, 310_000, 40_000, 4)];
    for (const x of [x1, x2, x3, x4]) book.add(x);
    book.remove(x2);
    t.same(book.orders(ASK).map((x) => x.id), ['x1', 'x3', 'x4'], 'removing from the middle keeps the order');
    x1.remaining -= 4_000;
    book.reduce(x1, 4_000);
    t.same(book.levels(ASK)[0], { price: 300_000, size: 36_000, orders: 2 });
    t.equal(book.available(ASK, 300_000, 1_000_000), 36_000, 'a buyer limited to 0.30 sees only that level');
    t.equal(book.available(ASK, 310_000, 1_000_000), 76_000);
    t.equal(book.available(ASK, 310_000, 20_000), 20_000, 'capped at enough');
    t.equal(book.available(ASK, 290_000, 1_000_000), 0);
    book.remove(x1);
    book.remove(x3);
    t.same(book.levels(ASK), [{ price: 310_000, size: 40_000, orders: 1 }], 'an emptied level disappears');
    t.equal(book.best(ASK)?.id, 'x4');
    t.throws(() => book.remove(x3), 'removing an order twice is a bug, and says so');
  });
}

type BookOp = { kind: 'add'; side: BookSide; tick: number; lots: number } | { kind: 'fill'; pick: number; lots: number } | { kind: 'remove'; pick: number };

const bookOp: fc.Arbitrary<BookOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), side: fc.constantFrom<BookSide>(BID, ASK), tick: fc.integer({ min: 1, max: 30 }), lots: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fill' as const), pick: fc.nat(), lots: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
);

t.test('the fast book answers exactly as the reference book', async (t) => {
  fc.assert(
    fc.property(fc.array(bookOp, { maxLength: 300, size: 'max' }), (ops) => {
      const fast = fastBookFactory();
      const ref = referenceBookFactory();
      const [mf, mr] = [maker(fast), maker(ref)];
      const live: [Order, Order][] = [];
      let priority = 0;
      for (const op of ops) {
        if (op.kind === 'add') {
          priority += 1;
          const price = op.tick * 10_000 + (op.side === ASK ? 300_000 : 200_000);
          const pair: [Order, Order] = [mf(`o${priority}`, op.side, price, op.lots * 10_000, priority), mr(`o${priority}`, op.side, price, op.lots * 10_000, priority)];
          fast.add(pair[0]);
          ref.add(pair[1]);
          live.push(pair);
        } else if (live.length > 0) {
          const at = op.pick % live.length;
          const [a, b] = live[at] as [Order, Order];
          const qty = op.kind === 'fill' ? Math.min(op.lots * 10_000, a.remaining) : a.remaining;
          if (op.kind === 'fill' && qty < a.remaining) {
            a.remaining -= qty;
            b.remaining -= qty;
            fast.reduce(a, qty);
            ref.reduce(b, qty);
          } else {
            fast.remove(a);
            ref.remove(b);
            live.splice(at, 1);
          }
        }
        for (const side of [BID, ASK] as const) {
          if (fast.best(side)?.id !== ref.best(side)?.id) return false;
          if (JSON.stringify(fast.levels(side)) !== JSON.stringify(ref.levels(side))) return false;
          if (fast.orders(side).map((o) => o.id).join() !== ref.orders(side).map((o) => o.id).join()) return false;
          const limit = side === ASK ? 450_000 : 350_000;
          if (fast.available(side, limit, 200_000) !== ref.available(side, limit, 200_000)) return false;
        }
        if (fast.size !== ref.size) return false;
      }
      return true;
    }),
    { numRuns: Number(process.env.PMX_PROPERTY_RUNS ?? 40) * 5 },
  );
  t.pass('fast and reference books agree');
});
