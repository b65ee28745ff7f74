// Account reads over HTTP against the whole running service: GET /data/order/{id}, /data/orders,
// /data/trades, /builder/trades, /balance-allowance(/update), and POST /split, /merge, /redeem. Orders are
// placed and crossed through POST /order by two traders; every read right after a POST must see it
// (read-your-writes). Refusals (bad auth, bad input) leave the engine's state unchanged.

import t, { type Test } from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader, type Answer } from '../support/tradingClient.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const HEADERS = { headerStyle: 'hyphen' as const };
const MAX_UINT256 = ((1n << 256n) - 1n).toString();

const usable = [...engine.markets()].filter((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5));
if (usable.length < 5) throw new Error('the demo catalog needs five active markets with tick 0.01');
/** M: crossing and orders; M2: a second market for filters; M3: many orders (cursors); M4: split/merge/redeem; M5: builder trades. */
const [M, M2, M3, M4, M5] = usable as [Market, Market, Market, Market, Market];

async function outcomeLabels(m: Market): Promise<readonly [string, string]> {
  return (await svc.service.reads.metadata([m.conditionId])).get(m.conditionId)?.outcomes ?? ['Yes', 'No'];
}

async function funded(collateral = 1000, split?: Market, splitAmount = 0): Promise<Trader> {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(collateral) });
  if (split !== undefined) await host.submit({ type: 'Split', account: trader.account, conditionId: split.conditionId, amount: units(splitAmount) });
  return trader;
}

interface Terms {
  side: 'BUY' | 'SELL';
  makerAmount: number;
  takerAmount: number;
  tokenId: string;
  builder?: string;
}

/** Limit order amounts: BUY gives price × size collateral for size shares; SELL the reverse. */
function limit(side: 'BUY' | 'SELL', price: number, size: number, tokenId: string): Terms {
  const shares = units(size);
  const cash = Math.round(price * size * 1_000_000);
  return side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId } : { side, makerAmount: shares, takerAmount: cash, tokenId };
}

interface Placed {
  orderID: string;
  status: string;
  tradeIDs: string[];
}

async function place(trader: Trader, terms: Terms, type: 'GTC' | 'FOK' = 'GTC'): Promise<Placed> {
  const res = await trader.postOrder(await trader.signOrder(terms), type);
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  return res.body as Placed;
}

interface FlatOrder {
  id: string;
  status: string;
  size_matched: string;
  associate_trades: string[];
  market: string;
  asset_id: string;
}
interface OrderPage {
  data: FlatOrder[];
  next_cursor: string;
  limit: number;
  count: number;
}
interface Trade {
  id: string;
  trader_side: string;
  side: string;
  size: string;
  price: string;
  market: string;
  asset_id: string;
  match_time: string;
  transaction_hash: string;
  taker_order_id: string;
  maker_address: string;
  owner: string;
  maker_orders: { order_id: string; maker_address: string; owner: string }[];
}
interface TradePage {
  data: Trade[];
  next_cursor: string;
  limit: number;
  count: number;
}

const tradeIds = (res: Answer): string[] => (res.body as TradePage).data.map((x) => x.id);

/** Expects a refusal with `status` and `error`, and no change to the engine's state. */
async function refused(tt: Test, what: string, status: number, error: string | RegExp, act: () => Promise<Answer>): Promise<void> {
  const release = await holdTimedCommands(host);
  try {
    const before = engine.stateHash();
    const res = await act();
    tt.equal(res.status, status, `${what}: status (${res.text})`);
    tt.match((res.body as { error?: string }).error ?? '', error, `${what}: message`);
    await host.idle();
    tt.equal(engine.stateHash(), before, `${what}: state unchanged`);
  } finally {
    release();
  }
}

t.test('two traders crossing: orders, trades and balances, readable at once', async (tt) => {
  const [yes] = await outcomeLabels(M);
  const buyer = await funded(1000);
  const seller = await funded(100, M, 50);
  const [T0] = M.tokenIds;

  const bid = await place(buyer, limit('BUY', 0.4, 10, T0));
  tt.equal(bid.status, 'live');
  const fresh = await buyer.l2('GET', `/data/order/${bid.orderID}`);
  tt.equal(fresh.status, 200, fresh.text);
  const body = fresh.body as Record<string, unknown> & { order: Record<string, unknown> };
  const createdAt = body.created_at as number;
  tt.ok(Number.isInteger(createdAt) && Math.abs(createdAt - Date.now() / 1000) < 60, 'created_at: integer seconds, now');
  tt.same(body, {
    order: {
      associateTrades: [], id: bid.orderID, status: 'LIVE', market: M.conditionId, originalSize: '10', outcome: yes, makerAddress: buyer.account,
      owner: buyer.requireCreds().apiKey, price: '0.4', sizeMatched: '0', assetId: T0, side: 'BUY', type: 'GTC', createdAt: new Date(createdAt * 1000).toISOString(),
    },
    id: bid.orderID, status: 'LIVE', owner: buyer.requireCreds().apiKey, maker_address: buyer.account, market: M.conditionId, asset_id: T0, side: 'BUY',
    original_size: '10', size_matched: '0', price: '0.4', outcome: yes, expiration: '0', order_type: 'GTC', associate_trades: [], created_at: createdAt,
  }, 'the spec wrapper and the flat OpenOrder in one object, right after POST /order');

  const hit = await place(seller, limit('SELL', 0.4, 4, T0), 'FOK');
  tt.equal(hit.tradeIDs.length, 1);
  const [tradeId] = hit.tradeIDs as [string];
  const sellerTrades = await seller.l2('GET', '/data/trades', undefined, `?id=${tradeId}`);
  tt.equal(sellerTrades.status, 200, sellerTrades.text);
  const page = sellerTrades.body as TradePage;
  tt.same([page.count, page.next_cursor, page.limit], [1, 'LTE=', 100]);
  tt.match(page.data[0], {
    id: tradeId, taker_order_id: hit.orderID, market: M.conditionId, asset_id: T0, side: 'SELL', size: '4', price: '0.4', status: 'CONFIRMED',
    outcome: yes, maker_address: seller.account, owner: seller.requireCreds().apiKey, trader_side: 'TAKER', type: 'TAKER', bucket_index: 0,
    maker_orders: [{ order_id: bid.orderID, maker_address: buyer.account, owner: buyer.requireCreds().apiKey, matched_amount: '4', side: 'BUY', price: '0.4', asset_id: T0, outcome: yes }],
  }, 'the trade of POST /order\'s tradeIDs is readable at once');
  const buyerTrades = await buyer.l2('GET', '/data/trades');
  tt.same((buyerTrades.body as TradePage).data.map((x) => [x.id, x.trader_side]), [[tradeId, 'MAKER']]);

  const after = await buyer.l2('GET', `/data/order/${bid.orderID}`);
  tt.match(after.body, { status: 'LIVE', size_matched: '4', associate_trades: [tradeId], order: { sizeMatched: '4', associateTrades: [tradeId] } });
  tt.match((await seller.l2('GET', `/data/order/${hit.orderID}`)).body, { status: 'MATCHED', size_matched: '4', order_type: 'FOK', side: 'SELL' });
  tt.match((await seller.l2('GET', `/data/order/${hit.orderID.toUpperCase().replace('0X', '0x')}`)).body, { id: hit.orderID }, 'the id in any letter case');

  const open = await buyer.l2('GET', '/data/orders');
  tt.same((open.body as OrderPage).data.map((o) => [o.id, o.status, o.size_matched]), [[bid.orderID, 'LIVE', '4']]);
  tt.same([(open.body as OrderPage).next_cursor, (open.body as OrderPage).count], ['LTE=', 1]);
  tt.same((await seller.l2('GET', '/data/orders')).body, { data: [], next_cursor: 'LTE=', limit: 100, count: 0 }, 'a filled FOK is not open');

  // Balances: the buyer paid 1.6 and reserves 2.4 for the rest of the bid; fees (if any) are in tokens.
  const collateral = await buyer.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL&signature_type=0');
  tt.equal(collateral.status, 200, collateral.text);
  tt.same(collateral.body, {
    balance: String(units(1000 - 4)),
    allowances: { [svc.service.config.exchangeAddress]: MAX_UINT256, [svc.service.config.negRiskExchangeAddress]: MAX_UINT256 },
  });
  const tokens = await buyer.l2('GET', '/balance-allowance', undefined, `?asset_type=CONDITIONAL&token_id=${T0}`);
  tt.equal((tokens.body as { balance: string }).balance, String(engine.balances(buyer.account)?.tokens.get(T0)?.free));
  tt.ok(Number((tokens.body as { balance: string }).balance) > units(3.9), 'about 4 shares');
  const sellerTokens = await seller.l2('GET', '/balance-allowance', undefined, `?asset_type=CONDITIONAL&token_id=${T0}`);
  tt.equal((sellerTokens.body as { balance: string }).balance, String(units(46)));
  const update = await seller.l2('GET', '/balance-allowance/update', undefined, `?asset_type=CONDITIONAL&token_id=${T0}&signature_type=0`);
  tt.same(update.body, sellerTokens.body, '/update answers the same object');
  const nothing = await (await funded(0.5)).l2('GET', '/balance-allowance', undefined, `?asset_type=conditional&token_id=${M2.tokenIds[1]}`);
  tt.equal((nothing.body as { balance: string }).balance, '0', 'a token never held');

  const root = await fetch(`${svc.baseUrl}/balance-allowance?asset_type=COLLATERAL`, { headers: buyer.l2Headers('GET', '/balance-allowance') });
  tt.equal(((await root.json()) as { balance: string }).balance, String(units(996)), 'also served at the root');
});

t.test("another account's order is not found", async (tt) => {
  const owner = await funded(100);
  const other = await funded(100);
  const placed = await place(owner, limit('BUY', 0.2, 5, M2.tokenIds[0]));
  const res = await other.l2('GET', `/data/order/${placed.orderID}`);
  tt.same([res.status, res.body], [404, { error: 'Order not found' }]);
  const missing = await owner.l2('GET', `/data/order/0x${'ab'.repeat(32)}`);
  tt.same([missing.status, missing.body], [404, { error: 'Order not found' }]);
  tt.same((await other.l2('GET', '/data/orders', undefined, `?id=${placed.orderID}`)).body, { data: [], next_cursor: 'LTE=', limit: 100, count: 0 });
});

t.test('filters and cursors of /data/orders and /data/trades', async (tt) => {
  const taker = await funded(1000);
  const maker = await funded(1000, M, 100);
  await host.submit({ type: 'Split', account: maker.account, conditionId: M2.conditionId, amount: units(100) });
  const [a0, a1] = M.tokenIds;
  const [b0] = M2.tokenIds;
  // Resting: the maker's asks (on M's outcome 0 and M2's outcome 0) and the taker's bids.
  const askA = await place(maker, limit('SELL', 0.7, 5, a0));
  const askB = await place(maker, limit('SELL', 0.65, 5, b0));
  const bidA1 = await place(taker, limit('BUY', 0.1, 5, a1));
  const bidB = await place(taker, limit('BUY', 0.2, 5, b0));
  const open = async (query = ''): Promise<string[]> => ((await taker.l2('GET', '/data/orders', undefined, query)).body as OrderPage).data.map((o) => o.id);
  tt.same(await open(), [bidB.orderID, bidA1.orderID], 'newest first');
  tt.same(await open(`?market=${M2.conditionId}`), [bidB.orderID]);
  tt.same(await open(`?market=${M2.conditionId.toUpperCase().replace('0X', '0x')}`), [bidB.orderID], 'condition id in any letter case');
  tt.same(await open(`?asset_id=${a1}`), [bidA1.orderID]);
  tt.same(await open(`?id=${bidA1.orderID}`), [bidA1.orderID]);
  tt.same(await open(`?market=${M.conditionId}&asset_id=${b0}`), []);
  tt.same(await open('?next_cursor=MA=='), [bidB.orderID, bidA1.orderID]);
  tt.same(await open('?next_cursor=LTE='), []);
  tt.same(await open('?market=&asset_id='), [bidB.orderID, bidA1.orderID], 'empty values are no filter');

  // Two trades: the taker lifts each ask.
  const t1 = (await place(taker, limit('BUY', 0.7, 5, a0), 'FOK')).tradeIDs[0] as string;
  const t2 = (await place(taker, limit('BUY', 0.65, 5, b0), 'FOK')).tradeIDs[0] as string;
  const trades = (query: string, who = taker): Promise<Answer> => who.l2('GET', '/data/trades', undefined, query);
  tt.same(tradeIds(await trades('')), [t2, t1]);
  tt.same(tradeIds(await trades('', maker)), [t2, t1], 'the maker sees them too');
  tt.same(tradeIds(await trades(`?market=${M.conditionId}`)), [t1]);
  tt.same(tradeIds(await trades(`?asset_id=${b0}`)), [t2]);
  tt.same(tradeIds(await trades(`?taker=${taker.address}`)), [t2, t1], 'checksummed address');
  tt.same(tradeIds(await trades(`?taker=${maker.address}`)), []);
  tt.same(tradeIds(await trades(`?maker=${maker.account}`)), [t2, t1]);
  tt.same(tradeIds(await trades(`?maker_address=${taker.address}`)), [t2, t1], "the official client's own address");
  tt.same(tradeIds(await trades(`?maker_address=${maker.address}&market=${M2.conditionId}`)), [t2]);
  const second = Number(((await trades(`?id=${t2}`)).body as TradePage).data[0]?.match_time);
  tt.same(tradeIds(await trades(`?before=${second + 1}&after=${second - 3600}`)), [t2, t1]);
  tt.same(tradeIds(await trades(`?after=${second}`)), [], 'strict');
  tt.same(tradeIds(await trades('?next_cursor=LTE=')), []);
  tt.same(tradeIds(await trades('?next_cursor=MA==')), [t2, t1]);
  tt.same(((await taker.l2('GET', `/data/order/${askA.orderID}`)).status), 404, "the counterparty's order is not the taker's");
  tt.match((await maker.l2('GET', `/data/order/${askB.orderID}`)).body, { status: 'MATCHED', associate_trades: [t2] });
});

t.test('a second page of open orders', async (tt) => {
  const trader = await funded(1000);
  const [c0] = M3.tokenIds;
  const key = trader.requireCreds().apiKey;
  const ids: string[] = [];
  for (let batch = 0; batch < 7; batch += 1) {
    const orders = await Promise.all(Array.from({ length: 15 }, (_, i) => trader.signOrder(limit('BUY', 0.01 * (1 + ((batch * 15 + i) % 20)), 5, c0))));
    const res = await trader.l2('POST', '/orders', orders.map((order) => ({ order, owner: key, orderType: 'GTC' })));
    tt.equal(res.status, 200, res.text);
    for (const item of res.body as { success: boolean; orderID: string }[]) {
      tt.ok(item.success);
      ids.push(item.orderID);
    }
  }
  const first = (await trader.l2('GET', '/data/orders', undefined, '?next_cursor=MA==')).body as OrderPage;
  tt.same([first.count, first.limit, first.next_cursor], [100, 100, 'MTAw']);
  const second = (await trader.l2('GET', '/data/orders', undefined, `?next_cursor=${first.next_cursor}`)).body as OrderPage;
  tt.same([second.count, second.next_cursor], [5, 'LTE=']);
  tt.same(new Set([...first.data, ...second.data].map((o) => o.id)), new Set(ids), 'every open order once');
});

t.test('builder trades: no authentication; a bare array, or with builder_code the official client\'s page', async (tt) => {
  const code = '0x' + 'b1'.repeat(32);
  const [d0] = M5.tokenIds;
  const maker = await funded(100, M5, 20);
  const taker = await funded(100);
  const ask = await place(maker, { ...limit('SELL', 0.5, 5, d0), builder: code });
  const fill = await place(taker, limit('BUY', 0.5, 5, d0), 'FOK');
  const [tradeId] = fill.tradeIDs as [string];
  const get = (query: string): Promise<Response> => fetch(`${svc.baseUrl}/clob/builder/trades${query}`);

  // The spec's form (§4.3): no builder_code, every attributed trade, a bare array of account trades.
  const res = await get(`?market=${M5.conditionId}`);
  tt.equal(res.status, 200);
  const trades = (await res.json()) as Trade[];
  tt.ok(Array.isArray(trades), 'a bare array');
  tt.same(trades.map((x) => [x.id, x.trader_side, x.maker_orders[0]?.order_id]), [[tradeId, 'MAKER', ask.orderID]], 'the attributed order was the maker');
  tt.same(((await (await get(`?market=${M5.conditionId}&asset_id=${d0}&maker_address=${maker.address}&builder_code=`)).json()) as Trade[]).map((x) => x.id), [tradeId], 'an empty builder_code is no filter');
  tt.same(await (await get(`?market=${M5.conditionId}&next_cursor=LTE=`)).json(), []);

  // With builder_code (only the official client sends it): {data: BuilderTrade[], next_cursor, limit, count}.
  const matchTime = trades[0]?.match_time ?? '';
  const iso = new Date(Number(matchTime) * 1000).toISOString().replace('.000Z', 'Z');
  const [yes] = await outcomeLabels(M5);
  const sdk = await get(`?builder_code=${code}`);
  tt.equal(sdk.status, 200);
  tt.same(await sdk.json(), {
    data: [{
      id: tradeId, tradeType: 'MAKER', takerOrderHash: fill.orderID, builder: code, market: M5.conditionId, assetId: d0, side: 'SELL',
      size: '5', sizeUsdc: '2.5', price: '0.5', status: 'CONFIRMED', outcome: yes, outcomeIndex: 0, owner: maker.requireCreds().apiKey,
      maker: maker.account, transactionHash: trades[0]?.transaction_hash, matchTime, bucketIndex: 0, fee: '0', feeUsdc: '0', builderFee: '0',
      builderCode: code, err_msg: null, createdAt: iso, updatedAt: iso,
    }],
    next_cursor: 'LTE=', limit: 100, count: 1,
  }, 'the attributed (maker) side of the fill');
  const page = async (query: string): Promise<{ data: { id: string }[]; next_cursor: string; count: number }> =>
    (await (await get(query)).json()) as { data: { id: string }[]; next_cursor: string; count: number };
  tt.same((await page(`?builder_code=${code.toUpperCase().replace('0X', '0x')}&market=${M5.conditionId}&asset_id=${d0}&maker_address=${maker.address}`)).data.map((x) => x.id), [tradeId], 'filters, any letter case');
  tt.same(await page(`?builder_code=0x${'cd'.repeat(32)}`), { data: [], next_cursor: 'LTE=', limit: 100, count: 0 });
  tt.same(await page(`?builder_code=${code}&next_cursor=LTE=`), { data: [], next_cursor: 'LTE=', limit: 100, count: 0 });
  tt.same(await page(`?builder_code=${code}&next_cursor=MA==&market=${M.conditionId}`), { data: [], next_cursor: 'LTE=', limit: 100, count: 0 });

  // A taker BUY attributed on a market with a taker fee: the fee is in tokens, feeUsdc its value at the price.
  const feeMarket = [...engine.markets()].find((m) => m.status === 'active' && m.params.takerFeeBps > 0 && m.params.tickSize === 10_000 && !m.params.negRisk);
  if (feeMarket === undefined) throw new Error('the demo catalog needs an active market with a taker fee');
  const feeCode = '0x' + 'f1'.repeat(32);
  const [f0] = feeMarket.tokenIds;
  const seller = await funded(100, feeMarket, 20);
  const buyer = await funded(100);
  const shares = Math.max(5, feeMarket.params.minSize / 1_000_000);
  await place(seller, limit('SELL', 0.4, shares, f0));
  const bought = await place(buyer, { ...limit('BUY', 0.4, shares, f0), builder: feeCode }, 'FOK');
  const feeTokens = Math.floor(units(shares) * feeMarket.params.takerFeeBps / 10_000);
  const feePage = await get(`?builder_code=${feeCode}`);
  tt.match(await feePage.json(), {
    data: [{
      id: bought.tradeIDs[0], tradeType: 'TAKER', takerOrderHash: bought.orderID, builderCode: feeCode, side: 'BUY', assetId: f0, maker: buyer.account,
      size: String(shares), sizeUsdc: String(shares * 0.4), price: '0.4', fee: String(feeTokens / 1_000_000), feeUsdc: String(Math.round(feeTokens * 0.4) / 1_000_000), builderFee: '0',
    }],
    count: 1,
  }, 'a taker BUY: fee in tokens, feeUsdc at the price');

  const bad = await get('?builder_code=0x1234');
  tt.same([bad.status, await bad.json()], [400, { error: 'invalid builder trade params' }]);
  const badMarket = await get('?market=nope');
  tt.same([badMarket.status, await badMarket.json()], [400, { error: 'Invalid market' }]);
});

t.test('split, merge and redeem of the caller\'s positions', async (tt) => {
  const trader = await funded(100);
  const [e0, e1] = M4.tokenIds;
  const split = await trader.l2('POST', '/split', { market: M4.conditionId, amount: String(units(10)) });
  tt.equal(split.status, 200, split.text);
  tt.same(split.body, { success: true, market: M4.conditionId, amount: String(units(10)), balance: String(units(90)), tokens: { [e0]: String(units(10)), [e1]: String(units(10)) } });
  const merge = await trader.l2('POST', '/merge', { market: M4.conditionId, amount: units(4) });
  tt.same(merge.body, { success: true, market: M4.conditionId, amount: String(units(4)), balance: String(units(94)), tokens: { [e0]: String(units(6)), [e1]: String(units(6)) } }, 'a JSON integer amount too');

  const notResolved = await trader.l2('POST', '/redeem', { market: M4.conditionId });
  tt.same([notResolved.status, notResolved.body], [400, { error: `market ${M4.conditionId} is not resolved` }], "the engine's refusal");
  const tooMuch = await trader.l2('POST', '/merge', { market: M4.conditionId, amount: String(units(7)) });
  tt.same([tooMuch.status, tooMuch.body], [400, { error: 'not enough balance / allowance' }]);
  const unknown = await trader.l2('POST', '/split', { market: `0x${'ee'.repeat(32)}`, amount: '1000000' });
  tt.same([unknown.status, unknown.body], [404, { error: 'market not found' }]);
  tt.equal(engine.balances(trader.account)?.free, units(94), 'refusals moved nothing');

  await host.submit({ type: 'ResolveMarket', conditionId: M4.conditionId, winningOutcome: 1 });
  const redeem = await trader.l2('POST', '/redeem', { market: M4.conditionId });
  tt.same(redeem.body, { success: true, market: M4.conditionId, payout: String(units(6)), balance: String(units(100)), tokens: { [e0]: '0', [e1]: '0' } });
  // A second redeem is a new signed request (a nonce field: the same body in the same second would be a copy).
  const again = await trader.l2('POST', '/redeem', { market: M4.conditionId, nonce: 2 });
  tt.same([again.status, again.body], [400, { error: `nothing to redeem in market ${M4.conditionId}` }]);
});

t.test('bad authentication: 401 and nothing processed', async (tt) => {
  const trader = await funded(100);
  const stranger = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  stranger.creds = { apiKey: '00000000-0000-4000-8000-000000000000', secret: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', passphrase: 'x'.repeat(64) };
  const forged = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  forged.creds = { ...trader.requireCreds() };
  const cases: [string, () => Promise<Answer>][] = [
    ['no headers: order', () => trader.request('GET', `/data/order/0x${'ab'.repeat(32)}`)],
    ['no headers, bad id', () => trader.request('GET', '/data/order/nope')],
    ['unknown key: orders', () => stranger.l2('GET', '/data/orders', undefined, '?market=bad')],
    ["another address with the key: trades", () => forged.l2('GET', '/data/trades', undefined, '?taker=bad')],
    ['no headers: balance', () => trader.request('GET', '/balance-allowance?asset_type=FOO')],
    ['no headers: update', () => trader.request('GET', '/balance-allowance/update?asset_type=COLLATERAL')],
    ['unknown key: split', () => stranger.l2('POST', '/split', { market: M4.conditionId, amount: '1000000' })],
    ['forged: merge', () => forged.l2('POST', '/merge', { market: M4.conditionId, amount: '1000000' })],
    ['no headers, bad body: redeem', () => trader.request('POST', '/redeem', { body: 'not json' })],
  ];
  for (const [what, act] of cases) await refused(tt, what, 401, /./, act);
  // A signature over another body does not cover this one.
  const headers = trader.l2Headers('POST', '/split', JSON.stringify({ market: M4.conditionId, amount: '1' }));
  await refused(tt, 'signed another body', 401, /./, () => trader.request('POST', '/split', { headers, body: JSON.stringify({ market: M4.conditionId, amount: String(units(50)) }) }));
  tt.equal(engine.balances(trader.account)?.free, units(100));
});

t.test('bad input: 400 and state unchanged', async (tt) => {
  const trader = await funded(100);
  const get = (path: string, query = ''): (() => Promise<Answer>) => () => trader.l2('GET', path, undefined, query);
  const post = (path: string, body: unknown): (() => Promise<Answer>) => () => trader.l2('POST', path, body);
  const raw = (path: string, text: string): (() => Promise<Answer>) => () => trader.request('POST', path, { headers: trader.l2Headers('POST', path, text), body: text });
  const cases: [string, string | RegExp, () => Promise<Answer>][] = [
    ['order id too short', 'Invalid orderID', get('/data/order/0x1234')],
    ['order id not hex', 'Invalid orderID', get(`/data/order/0x${'zz'.repeat(32)}`)],
    ['orders: id', 'Invalid orderID', get('/data/orders', '?id=abc')],
    ['orders: market', 'Invalid market', get('/data/orders', '?market=0x12')],
    ['orders: asset_id', 'Invalid token id', get('/data/orders', '?asset_id=0xabc')],
    ['orders: cursor', /^next_cursor: /, get('/data/orders', '?next_cursor=zzz')],
    ['trades: taker', /^taker: must be an address/, get('/data/trades', '?taker=bob')],
    ['trades: maker_address', /^maker_address: /, get('/data/trades', '?maker_address=0x12')],
    ['trades: before', /^before: /, get('/data/trades', '?before=yesterday')],
    ['trades: after', /^after: /, get('/data/trades', '?after=-1')],
    ['trades: cursor', /^next_cursor: /, get('/data/trades', `?next_cursor=${Buffer.from('-5').toString('base64')}`)],
    ['trades: market', 'Invalid market', get('/data/trades', '?market=x')],
    ['balance: asset_type', /^asset_type: /, get('/balance-allowance', '?asset_type=FOO')],
    ['balance: no asset_type', /^asset_type: /, get('/balance-allowance')],
    ['balance: CONDITIONAL without token', 'Invalid token id', get('/balance-allowance', '?asset_type=CONDITIONAL')],
    ['balance: bad token', 'Invalid token id', get('/balance-allowance/update', '?asset_type=CONDITIONAL&token_id=0x12')],
    ['balance: signature_type', /^signature_type: /, get('/balance-allowance', '?asset_type=COLLATERAL&signature_type=9')],
    ['split: not JSON', 'Invalid payload', raw('/split', '{market')],
    ['split: empty body', 'Invalid payload', raw('/split', '')],
    ['split: array', 'Invalid payload', post('/split', [M4.conditionId, '1'])],
    ['split: no market', 'Invalid market', post('/split', { amount: '1000000' })],
    ['split: bad market', 'Invalid market', post('/split', { market: '0x12', amount: '1000000' })],
    ['split: no amount', /^amount: /, post('/split', { market: M4.conditionId })],
    ['split: decimal amount', /^amount: /, post('/split', { market: M4.conditionId, amount: '1.5' })],
    ['split: zero', /^amount: /, post('/split', { market: M4.conditionId, amount: '0' })],
    ['split: negative', /^amount: /, post('/split', { market: M4.conditionId, amount: -5 })],
    ['merge: huge', /^amount: /, post('/merge', { market: M4.conditionId, amount: '99999999999999999999' })],
    ['merge: float', /^amount: /, post('/merge', { market: M4.conditionId, amount: 1.5 })],
    ['redeem: bad market', 'Invalid market', post('/redeem', { market: 42 })],
  ];
  for (const [what, error, act] of cases) await refused(tt, what, 400, error, act);
});
