// The JSON memory sends for GET /data/trades and GET /data/orders (projections/readModel/tradeJson.ts,
// orderJson.ts) against the routes' own serialiser (fast-json-stringify over the TRADE and ORDER page schemas),
// over generated trades and orders whose strings hold every kind of character JSON escapes (quotes,
// backslashes, controls, lone surrogates, astral characters); and the caches of shown fills' and orders' texts
// (projections/live/tradeJsonCache.ts, orderJsonCache.ts): a text is reused, made again when what it shows
// changes, and the bound lets the oldest go.

import t from 'tap';
import fc from 'fast-check';
import { compileRoute } from '../../api/http/schemas.js';
import { ORDER, page, TRADE } from '../../api/trading/accountSchemas.js';
import type { AccountTrade } from '../../projections/readModel/accountTrades.js';
import type { AccountOrder } from '../../projections/readModel/accountOrders.js';
import { orderJson } from '../../projections/readModel/orderJson.js';
import { OrderJsonCache } from '../../projections/live/orderJsonCache.js';
import { addTrade, NO_TRADES, type OpenOrder } from '../../projections/builders/orders.js';
import { marketInfo } from '../../projections/readModel/markets.js';
import { jsonText, ownBytes, pageBytes } from '../../projections/readModel/jsonText.js';
import { tradeJsonParts } from '../../projections/readModel/tradeJson.js';
import { FillWindows, type HeldFill } from '../../projections/live/fillWindows.js';
import { TradeJsonCache } from '../../projections/live/tradeJsonCache.js';

const orderPageJson = compileRoute({ method: 'GET', path: '/data/orders', surface: 'clob', summary: '', response: page(ORDER), handler: () => ({ status: 200, body: null }) }).stringify;
const pageJson = compileRoute({ method: 'GET', path: '/data/trades', surface: 'clob', summary: '', response: page(TRADE), handler: () => ({ status: 200, body: null }) }).stringify;

const text = (bytes: Buffer): string => bytes.toString('utf8');

/** Any UTF-16 code unit (lone surrogates included), weighted towards what JSON escapes. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\ud800', '\udfff', '😀', '/', 'é'),
  fc.constantFrom('a', '0', 'x', ' '),
);
const str = fc.oneof(fc.string({ unit, maxLength: 60 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdefx'), maxLength: 80 }), fc.constantFrom('', 'BUY', 'SELL', 'Yes', '0.53'));
const side = fc.constantFrom('BUY' as const, 'SELL' as const);

const makerOrder = fc.record({
  order_id: str, maker_address: str, owner: str, matched_amount: str, fee_rate_bps: str, price: str, asset_id: str, outcome: str, side,
});
const trade: fc.Arbitrary<AccountTrade> = fc.record({
  id: str, taker_order_id: str, market: str, asset_id: str, side, size: str, fee_rate_bps: str, price: str,
  status: fc.constant('CONFIRMED' as const), match_time: str, last_update: str, outcome: str,
  bucket_index: fc.integer({ min: 0, max: 2 ** 31 }), owner: str, maker_address: str, transaction_hash: str,
  trader_side: fc.constantFrom('TAKER' as const, 'MAKER' as const), type: fc.constant('TAKER' as const),
  maker_orders: fc.array(makerOrder, { minLength: 0, maxLength: 3 }),
});

t.test('a string literal is JSON.stringify\'s', async (t) => {
  fc.assert(fc.property(fc.string({ unit }), (s) => jsonText(s) === JSON.stringify(s)), { numRuns: 5_000 });
  t.pass('5,000 generated strings');
});

t.test('a page of trades is byte for byte what the route\'s serialiser writes', async (t) => {
  let checked = 0;
  fc.assert(fc.property(fc.array(trade, { maxLength: 12 }), str, fc.integer({ min: 0, max: 1_000 }), (data, nextCursor, limit) => {
    const body = { data, next_cursor: nextCursor, limit, count: data.length };
    const expected = pageJson(body);
    checked += 1;
    // Each trade as memory sends it: its head and tail around the reader's trader_side.
    const pieces = data.flatMap((d) => {
      const { head, tail } = tradeJsonParts(d);
      return [ownBytes(head), Buffer.from(jsonText(d.trader_side)), ownBytes(tail)];
    });
    return pageBytes(pieces, nextCursor, limit, data.length, 3).equals(Buffer.from(expected));
  }), { numRuns: 2_000 });
  t.equal(checked, 2_000);
});

const order: fc.Arbitrary<AccountOrder> = fc.record({
  id: str, status: fc.constantFrom('LIVE' as const, 'MATCHED' as const, 'CANCELED' as const), owner: str, maker_address: str, market: str, asset_id: str, side,
  original_size: str, size_matched: str, price: str, outcome: str, expiration: str, order_type: str,
  associate_trades: fc.array(str, { maxLength: 4 }), created_at: fc.integer({ min: 0, max: 2 ** 40 }),
});

t.test('a page of orders is byte for byte what the route\'s serialiser writes', async (t) => {
  let checked = 0;
  fc.assert(fc.property(fc.array(order, { maxLength: 12 }), str, fc.integer({ min: 0, max: 1_000 }), (data, nextCursor, limit) => {
    checked += 1;
    const expected = orderPageJson({ data, next_cursor: nextCursor, limit, count: data.length });
    const bytes = pageBytes(data.map((d) => ownBytes(orderJson(d))), nextCursor, limit, data.length);
    return bytes.equals(Buffer.from(expected));
  }), { numRuns: 2_000 });
  t.equal(checked, 2_000);
});

/** A held fill of market 0xm1 (taker outcome 0, maker outcome 1). */
function held(windows: FillWindows, n: number): HeldFill {
  windows.add(`f${n}`, 1_000 * n, '0xm1', 5_000_000, 0, `o${n}t`, 'a', 'key-a', '11', 0, 'BUY', 530_000, 0, 2_650_000, `o${n}m`, 'b', 'key-b', '12', 1, 'SELL', 470_000, 0, 2_350_000);
  const w = windows.of('a');
  return w?.fills[w.fills.length - 1] as HeldFill;
}

t.test('the cache of shown fills\' texts: reused, remade when the labels change, bounded', async (t) => {
  const windows = new FillWindows({ maxAccountFills: 100, maxFills: 100 });
  const cache = new TradeJsonCache(2);
  const upDown = marketInfo('0xm1', undefined, { title: 'T', slug: 's', icon: '', eventSlug: 'e', eventId: '1', outcomes: ['Up', 'Down'], endDate: '' });
  const yesNo = marketInfo('0xm1', undefined, undefined);
  const [f1, f2, f3] = [held(windows, 1), held(windows, 2), held(windows, 3)];
  const first = cache.entryOf(f1, upDown, '0xhash1');
  t.match(text(first.head), /"outcome":"Up"/);
  t.match(text(first.tail), /"outcome":"Down"/);
  t.equal(cache.entryOf(f1, upDown, '0xhash1'), first, 'the kept text is reused');
  const relabelled = cache.entryOf(f1, yesNo, '0xhash1');
  t.not(relabelled, first, 'new labels make a new text');
  t.match(text(relabelled.head), /"outcome":"Yes"/);
  t.equal(f1.json, relabelled, 'and it is kept in place of the old one');
  t.equal(cache.size, 1, 'a remade text does not count twice');
  cache.entryOf(f2, yesNo, '0xhash2');
  cache.entryOf(f3, yesNo, '0xhash3');
  t.equal(cache.size, 2, 'the bound holds');
  t.equal(f1.json, undefined, 'the oldest kept let its text go');
  t.not(f3.json, undefined);
  const none = new TradeJsonCache(0);
  const f4 = held(windows, 4);
  t.match(text(none.entryOf(f4, yesNo, '0xhash4').head), /"id":"f4"/);
  t.equal(f4.json, undefined, 'a bound of 0 keeps nothing');
});

t.test('the cache of shown orders\' texts: reused, remade when the order or its labels change, bounded', async (t) => {
  const cache = new OrderJsonCache(2);
  const upDown = marketInfo('0xm1', undefined, { title: 'T', slug: 's', icon: '', eventSlug: 'e', eventId: '1', outcomes: ['Up', 'Down'], endDate: '' });
  const yesNo = marketInfo('0xm1', undefined, undefined);
  const open = (n: number): OpenOrder => ({
    id: `o${n}`, account: 'a', owner: 'key-a', conditionId: '0xm1', tokenId: '11', outcome: 0, side: 'BUY', price: 530_000, size: 10_000_000, matched: 0, status: 'LIVE',
    orderType: 'GTC', postOnly: false, expiration: 0, makerAmount: 5_300_000, takerAmount: 10_000_000, trades: NO_TRADES, builder: '', createdAt: 1_000 * n, updatedAt: 1_000 * n, resting: true,
  });
  let made = 0;
  const row = (o: OpenOrder) => {
    made += 1;
    return { order_id: o.id, account: o.account, owner: o.owner, condition_id: o.conditionId, token_id: o.tokenId, outcome: o.outcome, side: o.side, price: o.price, original_size: o.size, size_matched: o.matched, status: 'LIVE' as const, order_type: o.orderType, expiration: o.expiration, associate_trades: [...o.trades], created_ms: o.createdAt };
  };
  const [o1, o2, o3] = [open(1), open(2), open(3)];
  const first = text(cache.bytesOf(o1, upDown, row));
  t.match(first, /"outcome":"Up".*"size_matched":"0"|"size_matched":"0".*"outcome":"Up"/);
  t.equal(text(cache.bytesOf(o1, upDown, row)), first, 'the kept text is reused');
  t.equal(made, 1, 'without making the row again');
  o1.matched = 2_000_000;
  addTrade(o1, 't1');
  const filled = text(cache.bytesOf(o1, upDown, row));
  t.match(filled, /"size_matched":"2".*"associate_trades":\["t1"\]/, 'a fill makes a new text');
  addTrade(o1, 't2');
  t.match(text(cache.bytesOf(o1, upDown, row)), /"associate_trades":\["t1","t2"\]/, 'so does another trade alone');
  t.match(text(cache.bytesOf(o1, yesNo, row)), /"outcome":"Yes"/, 'and new labels');
  t.equal(cache.size, 1, 'a remade text does not count twice');
  text(cache.bytesOf(o2, yesNo, row));
  text(cache.bytesOf(o3, yesNo, row));
  t.equal(cache.size, 2, 'the bound holds');
  const before = made;
  text(cache.bytesOf(o1, yesNo, row));
  t.equal(made, before + 1, 'the oldest kept let its text go');
});
