// The official V2 client (@polymarket/clob-client-v2, unchanged) against the running service at
// `${baseUrl}/clob`, chain 137: API keys, limit and marketable orders, batches, cancels, account reads,
// market parameters, errors and key deletion, with the concrete values of every answer. Two wallets trade on
// a market listed for this test (tick 0.01, min size 5, no fees), so the book holds only their orders.

import { ApiError, AssetType, ClobClient, OrderType, Side, getContractConfig, type ApiKeyCreds, type OpenOrder, type Trade } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import { Wallet } from 'ethers';
import t, { type Test } from 'tap';
import { units } from '../engine/scenario.js';
import { clientSigner } from '../auth/fixtures.js';
import { startTestService } from '../support/serviceFixture.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const CLOB = `${svc.baseUrl}/clob`;

/** A decimal uint256 token id and a condition id, as real ones look. */
function tokenId(label: string): string {
  return BigInt('0x' + createHash('sha256').update(label).digest('hex')).toString();
}
function conditionId(label: string): string {
  return '0x' + createHash('sha256').update(label).digest('hex');
}

async function must(command: Parameters<typeof host.submit>[0]): Promise<void> {
  const events = await host.submit(command);
  const refused = events.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
}

const CID = conditionId('sdk-compat-market');
const [T0, T1] = [tokenId('sdk-compat-yes'), tokenId('sdk-compat-no')];
const FEE_CID = conditionId('sdk-compat-fee-market');
const FEE_TOKEN = tokenId('sdk-compat-fee-yes');
await must({ type: 'ListMarket', conditionId: CID, tokenIds: [T0, T1], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
await must({ type: 'ListMarket', conditionId: FEE_CID, tokenIds: [FEE_TOKEN, tokenId('sdk-compat-fee-no')], tickSize: 1_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 150, negRisk: false });

const alice = Wallet.createRandom() as unknown as Wallet; // maker: sells T0 from a split, bids with collateral
const bob = Wallet.createRandom() as unknown as Wallet; // taker: buys and sells at the market
await must({ type: 'Deposit', account: alice.address.toLowerCase(), amount: units(100) });
await must({ type: 'Split', account: alice.address.toLowerCase(), conditionId: CID, amount: units(50) });
await must({ type: 'Deposit', account: bob.address.toLowerCase(), amount: units(20) });

function client(wallet: Wallet, creds?: ApiKeyCreds, throwOnError = true): ClobClient {
  return new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(wallet) as never, ...(creds === undefined ? {} : { creds }), throwOnError });
}

let aliceCreds: ApiKeyCreds;
let bobCreds: ApiKeyCreds;
let A: ClobClient;
let B: ClobClient;
let aliceAsk = '';
let aliceBid = '';
const bobTrades: { id: string; hash: string }[] = [];

/** Fails `tt` when `act` does not throw an ApiError; returns it. */
async function apiError(tt: Test, act: () => Promise<unknown>): Promise<ApiError | undefined> {
  try {
    const got = await act();
    tt.fail(`expected an ApiError, got ${JSON.stringify(got)}`);
  } catch (error) {
    if (error instanceof ApiError) return error;
    tt.fail(`expected an ApiError, got ${String(error)}`);
  }
  return undefined;
}

t.test('the service uses the SDK\'s Polygon domain', async (tt) => {
  const config = getContractConfig(137);
  tt.equal(svc.service.config.chainId, 137);
  tt.equal(svc.service.config.exchangeAddress.toLowerCase(), config.exchangeV2.toLowerCase());
  tt.equal(svc.service.config.negRiskExchangeAddress.toLowerCase(), config.negRiskExchangeV2.toLowerCase());
});

t.test('service reads: ok, version, time', async (tt) => {
  const c = new ClobClient({ host: CLOB, chain: 137, throwOnError: true });
  tt.equal(await c.getOk(), 'OK');
  tt.equal(await c.getVersion(), 2);
  const time = (await c.getServerTime()) as unknown as number;
  tt.ok(Number.isInteger(time), 'integer seconds');
  tt.ok(Math.abs(time - Date.now() / 1000) < 5, 'the server clock');
});

t.test('API keys: createOrDeriveApiKey twice, getApiKeys, getClosedOnlyMode', async (tt) => {
  const signIn = client(alice, undefined, false);
  aliceCreds = await signIn.createOrDeriveApiKey();
  tt.match(aliceCreds.key, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  tt.match(aliceCreds.secret, /^[A-Za-z0-9_-]{43}=$/);
  tt.match(aliceCreds.passphrase, /^[0-9a-f]{64}$/);
  tt.same(await signIn.createOrDeriveApiKey(), aliceCreds, 'the second call derives the same credentials');
  tt.same(await signIn.deriveApiKey(), aliceCreds);
  // With throwOnError the client's createOrDeriveApiKey throws on the 400 of an existing key (as against upstream).
  const err = await apiError(tt, () => client(alice).createOrDeriveApiKey());
  tt.same([err?.message, err?.status], ['Could not create api key', 400]);

  bobCreds = await client(bob, undefined, false).createOrDeriveApiKey();
  tt.not(bobCreds.key, aliceCreds.key);
  A = client(alice, aliceCreds);
  B = client(bob, bobCreds);
  tt.same(await A.getApiKeys(), { apiKeys: [aliceCreds.key] });
  tt.same(await B.getApiKeys(), { apiKeys: [bobCreds.key] });
  tt.same(await A.getClosedOnlyMode(), { closed_only: false });
});

t.test('market parameters the client reads', async (tt) => {
  const c = new ClobClient({ host: CLOB, chain: 137, throwOnError: true });
  tt.equal(await c.getTickSize(T0), '0.01');
  tt.equal(await c.getTickSize(FEE_TOKEN), '0.001');
  tt.equal(await c.getNegRisk(T0), false);
  tt.equal(await c.getFeeRateBps(T0), 0);
  tt.equal(await c.getFeeRateBps(FEE_TOKEN), 150);
  tt.equal(await c.getFeeExponent(T1), 0, 'through /markets-by-token and /clob-markets');
  const info = await c.getClobMarketInfo(CID);
  tt.match(info, { c: CID, t: [{ t: T0 }, { t: T1 }], mts: 0.01, nr: false, mos: 5 });
  tt.equal(await c.getTickSize(T1), '0.01');
});

t.test('a limit order: createAndPostOrder GTC rests; getOrder, getOpenOrders, getOrderBook show it', async (tt) => {
  const placed = await A.createAndPostOrder({ tokenID: T0, price: 0.6, size: 10, side: Side.SELL }, undefined, OrderType.GTC);
  tt.match(placed, { success: true, errorMsg: '', status: 'live', transactionsHashes: [], tradeIDs: [] });
  tt.match(placed.orderID, /^0x[0-9a-f]{64}$/);
  tt.ok(['0', ''].includes(placed.makingAmount) && ['0', ''].includes(placed.takingAmount), 'nothing filled');
  aliceAsk = placed.orderID;
  tt.equal(engine.order(aliceAsk)?.remaining, units(10), 'the order rests in the engine');

  const bidOrder = await A.createOrder({ tokenID: T0, price: 0.4, size: 10, side: Side.BUY });
  tt.match(bidOrder, { tokenId: T0, makerAmount: '4000000', takerAmount: '10000000', side: Side.BUY, signatureType: 0 });
  const bid = await A.postOrder(bidOrder, OrderType.GTC);
  tt.match(bid, { success: true, status: 'live' });
  aliceBid = bid.orderID;

  const order = (await A.getOrder(aliceAsk)) as OpenOrder;
  tt.match(order, {
    id: aliceAsk, status: 'LIVE', owner: aliceCreds.key, market: CID, asset_id: T0, side: 'SELL',
    original_size: '10', size_matched: '0', price: '0.6', outcome: 'Yes', expiration: '0', order_type: 'GTC', associate_trades: [],
  });
  tt.equal(order.maker_address?.toLowerCase(), alice.address.toLowerCase());
  tt.ok(Number.isInteger(order.created_at) && Math.abs(order.created_at - Date.now() / 1000) < 60, 'created_at: integer seconds');

  const open = await A.getOpenOrders({ market: CID });
  tt.same(open.map((o) => o.id).sort(), [aliceAsk, aliceBid].sort());
  tt.same((await A.getOpenOrders({ id: aliceBid })).map((o) => [o.id, o.side, o.price, o.original_size]), [[aliceBid, 'BUY', '0.4', '10']]);
  tt.same(await B.getOpenOrders(), [], "Bob sees none of Alice's orders");

  const book = await B.getOrderBook(T0);
  tt.match(book, { market: CID, asset_id: T0, tick_size: '0.01', min_order_size: '5', neg_risk: false });
  tt.same(book.asks, [{ price: '0.6', size: '10' }]);
  tt.same(book.bids, [{ price: '0.4', size: '10' }]);
  tt.equal(await B.getOrderBookHash({ ...book }), book.hash, 'the client recomputes the served hash');
});

t.test('marketable orders: createMarketOrder + postOrder FOK, createAndPostMarketOrder FAK', async (tt) => {
  const order = await B.createMarketOrder({ tokenID: T0, amount: 3, side: Side.BUY });
  tt.match(order, { tokenId: T0, makerAmount: '3000000', takerAmount: '5000000', side: Side.BUY }, 'price 0.6 from the book');
  const started = Date.now();
  const bought = await B.postOrder(order, OrderType.FOK);
  tt.ok(Date.now() - started < 3_000, `postOrder returns at once (${Date.now() - started} ms; no trade polling timeout)`);
  tt.match(bought, { success: true, errorMsg: '', status: 'matched', makingAmount: '3', takingAmount: '5' });
  tt.equal(bought.tradeIDs?.length, 1);
  tt.equal(bought.transactionsHashes?.length, 1);
  tt.match(bought.transactionsHashes?.[0], /^0x[0-9a-f]{64}$/);
  bobTrades.push({ id: bought.tradeIDs?.[0] ?? '', hash: bought.transactionsHashes?.[0] ?? '' });

  const sold = await B.createAndPostMarketOrder({ tokenID: T0, amount: 2, side: Side.SELL, orderType: OrderType.FAK }, undefined, OrderType.FAK);
  tt.match(sold, { success: true, errorMsg: '', status: 'matched', makingAmount: '2', takingAmount: '0.8' }, 'sold 2 into the bid at 0.4');
  tt.equal(sold.tradeIDs?.length, 1);
  bobTrades.push({ id: sold.tradeIDs?.[0] ?? '', hash: sold.transactionsHashes?.[0] ?? '' });

  const bobBalances = engine.balances(bob.address.toLowerCase());
  tt.equal(bobBalances?.free, units(20 - 3 + 0.8));
  tt.equal(bobBalances?.tokens.get(T0)?.free, units(3));

  const book = await B.getOrderBook(T0);
  tt.same([book.asks, book.bids], [[{ price: '0.6', size: '5' }], [{ price: '0.4', size: '8' }]]);
  tt.match(await A.getOrder(aliceAsk), { status: 'LIVE', size_matched: '5', associate_trades: [bobTrades[0]?.id] });
  tt.same(await B.getLastTradePrice(T0), { price: '0.4', side: 'SELL' });
});

t.test('getTrades shows the trades to both wallets', async (tt) => {
  const [buy, sell] = bobTrades as [{ id: string; hash: string }, { id: string; hash: string }];
  const mine = await B.getTrades();
  tt.same(mine.map((x) => x.id).sort(), [buy.id, sell.id].sort());
  const byId = (list: Trade[], id: string): Trade | undefined => list.find((x) => x.id === id);
  tt.match(byId(mine, buy.id), {
    market: CID, asset_id: T0, side: 'BUY', size: '5', price: '0.6', status: 'CONFIRMED', trader_side: 'TAKER',
    owner: bobCreds.key, transaction_hash: buy.hash, fee_rate_bps: '0', outcome: 'Yes', bucket_index: 0,
    maker_orders: [{ order_id: aliceAsk, owner: aliceCreds.key, matched_amount: '5', price: '0.6', side: 'SELL', asset_id: T0 }],
  });
  tt.match(byId(mine, sell.id), { side: 'SELL', size: '2', price: '0.4', trader_side: 'TAKER', maker_orders: [{ order_id: aliceBid, side: 'BUY' }] });
  const one = await B.getTrades({ id: buy.id });
  tt.same(one.map((x) => x.id), [buy.id], 'filtered by id, as the client polls after a match');

  const theirs = await A.getTrades({ market: CID });
  tt.same(theirs.map((x) => x.id).sort(), [buy.id, sell.id].sort());
  tt.ok(theirs.every((x) => x.trader_side === 'MAKER'), 'Alice was the maker of both');
  const page = await A.getTradesPaginated({ market: CID });
  tt.match(page, { count: 2, next_cursor: 'LTE=' });
  tt.equal(page.trades.length, 2);
});

t.test('postOrders (batch) and the four cancels', async (tt) => {
  const orders = [];
  for (const price of [0.11, 0.12, 0.13]) orders.push(await A.createOrder({ tokenID: T0, price, size: 5, side: Side.BUY }));
  const placed = await A.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC })));
  tt.equal(placed.length, 3);
  tt.ok(placed.every((p) => p.success && p.status === 'live' && p.errorMsg === ''), 'every order rests');
  const [x, y, z] = placed.map((p) => p.orderID) as [string, string, string];

  tt.same(await A.cancelOrder({ orderID: x }), { canceled: [x], not_canceled: {} });
  tt.same(await A.cancelOrder({ orderID: x }), { canceled: [], not_canceled: { [x]: 'Order already canceled' } });
  const unknown = '0x' + 'cd'.repeat(32);
  tt.same(await A.cancelOrders([y, unknown]), { canceled: [y], not_canceled: { [unknown]: 'Order not found' } });
  tt.same(await B.cancelOrder({ orderID: z }), { canceled: [], not_canceled: { [z]: 'Order not found' } }, "Bob cannot cancel Alice's order");
  const market = (await A.cancelMarketOrders({ market: CID, asset_id: T0 })) as { canceled: string[]; not_canceled: object };
  tt.same([market.canceled.sort(), market.not_canceled], [[z, aliceAsk, aliceBid].sort(), {}]);
  tt.same(await A.cancelAll(), { canceled: [], not_canceled: {} });

  const last = await A.createAndPostOrder({ tokenID: T0, price: 0.2, size: 5, side: Side.BUY });
  tt.same(await A.cancelAll(), { canceled: [last.orderID], not_canceled: {} });
  tt.same(await A.getOpenOrders(), []);
  tt.match(await A.getOrder(x), { status: 'CANCELED', size_matched: '0' });
  tt.equal(engine.balances(alice.address.toLowerCase())?.reserved, 0, 'every reservation released');
});

t.test('balance and allowance', async (tt) => {
  const cash = engine.balances(alice.address.toLowerCase());
  const collateral = await A.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
  tt.equal(collateral.balance, String(cash?.free), 'collateral in 6-decimal base units');
  const config = getContractConfig(137);
  const unlimited = ((1n << 256n) - 1n).toString();
  tt.same(
    Object.fromEntries(Object.entries(collateral.allowances).map(([k, v]) => [k.toLowerCase(), v])),
    { [config.exchangeV2.toLowerCase()]: unlimited, [config.negRiskExchangeV2.toLowerCase()]: unlimited },
    'both V2 exchanges may spend without limit (no chain here)',
  );
  const tokens = await A.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: T0 });
  tt.equal(tokens.balance, String(cash?.tokens.get(T0)?.free), 'tokens of T0 in base units');
  tt.equal((await B.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: T0 })).balance, String(units(3)));
  const updated = (await A.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL })) as unknown;
  tt.same(updated, collateral, 'update answers the same object (nothing to refresh)');
  tt.equal((await A.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance, String(cash?.free), 'unchanged by the update');
});

t.test('errors: the client throws ApiError with throwOnError, else returns {error, status}', async (tt) => {
  const tooMuch = { tokenID: T0, price: 0.5, size: 1_000, side: Side.BUY };
  const bobAccount = bob.address.toLowerCase();
  const snapshot = (): number[] => {
    const b = engine.balances(bobAccount);
    return [b?.free ?? -1, b?.reserved ?? -1, b?.tokens.get(T0)?.free ?? -1, b?.tokens.get(T0)?.reserved ?? -1];
  };
  const before = snapshot();
  const err = await apiError(tt, () => B.createAndPostOrder(tooMuch));
  tt.equal(err?.status, 400);
  tt.match(err?.message, /^not enough balance \/ allowance/, "the server's message");
  const quiet = client(bob, bobCreds, false);
  const answer = (await quiet.createAndPostOrder(tooMuch)) as unknown as { error: string; status: number };
  tt.equal(answer.status, 400);
  tt.match(answer.error, /^not enough balance \/ allowance/);

  const fok = await apiError(tt, async () => B.postOrder(await B.createMarketOrder({ tokenID: T0, amount: 1, side: Side.BUY, price: 0.3 }), OrderType.FOK));
  tt.same([fok?.status, fok?.message], [400, "order couldn't be fully filled. FOK orders are fully filled or killed."]);
  const ask = await A.createAndPostOrder({ tokenID: T0, price: 0.65, size: 5, side: Side.SELL });
  const crossing = await apiError(tt, () => B.createAndPostOrder({ tokenID: T0, price: 0.7, size: 5, side: Side.BUY }, undefined, OrderType.GTC, true));
  tt.same([crossing?.status, crossing?.message], [400, 'invalid post-only order: order crosses book']);
  tt.same(await A.cancelOrder({ orderID: ask.orderID }), { canceled: [ask.orderID], not_canceled: {} });
  const missing = await apiError(tt, () => B.getOrder('0x' + '77'.repeat(32)));
  tt.same([missing?.status, missing?.message], [404, 'Order not found']);
  await host.idle();
  tt.same(snapshot(), before, "refusals left Bob's balances as they were");
  tt.same(engine.openOrders(bobAccount), [], 'and rested nothing');
});

t.test('a builder code: orders carry it, market orders read its fees, builder trades list the fill', async (tt) => {
  const code = '0x' + 'b1'.repeat(32);
  const AB = new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(alice) as never, creds: aliceCreds, throwOnError: true, builderConfig: { builderCode: code } });
  const BB = new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(bob) as never, creds: bobCreds, throwOnError: true, builderConfig: { builderCode: code } });
  const ask = await AB.createOrder({ tokenID: T0, price: 0.5, size: 6, side: Side.SELL });
  tt.equal(ask.builder, code, 'the builder code is signed into the order');
  const rested = await AB.postOrder(ask, OrderType.GTC);
  tt.match(rested, { success: true, status: 'live' });
  tt.same(await fetch(`${CLOB}/fees/builder-fees/${code}`).then((r) => r.json()), { builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0 }, 'no builder fees here');
  const malformed = await fetch(`${svc.baseUrl}/fees/builder-fees/0x1234`);
  tt.same([malformed.status, await malformed.json()], [400, { error: 'builder_code: must be bytes32 hex (0x + 64 hex digits)' }], 'also at the root');
  const order = await BB.createMarketOrder({ tokenID: T0, amount: 1.5, side: Side.BUY, userUSDCBalance: 17.8 }, { tickSize: '0.01' });
  tt.match(order, { makerAmount: '1500000', takerAmount: '3000000', builder: code }, 'the balance covers the amount: no fee adjustment');
  const hit = await BB.postOrder(order, OrderType.FOK);
  tt.match(hit, { status: 'matched', makingAmount: '1.5', takingAmount: '3' });
  const [tradeId] = hit.tradeIDs ?? [];
  const raw = (await fetch(`${CLOB}/builder/trades?id=${tradeId}`).then((r) => r.json())) as { id: string; trader_side: string }[];
  tt.same(raw.map((x) => [x.id, x.trader_side]), [[tradeId, 'TAKER']], 'without builder_code: the spec\'s bare array of account trades (4.3)');
  // The V2 client sends builder_code and reads `{data: BuilderTrade[] (camelCase), next_cursor, limit, count}`.
  // Both orders carried the code: the fill is listed once, from the taker order (Bob's market BUY).
  const attributed = await BB.getBuilderTrades({ builder_code: code });
  tt.same(attributed.trades.map((x) => x.id), hit.tradeIDs, 'getBuilderTrades sees the fill');
  tt.match(attributed, { next_cursor: 'LTE=', limit: 100, count: 1 }, 'getBuilderTrades: the page fields');
  tt.match(attributed.trades[0], {
    tradeType: 'TAKER', takerOrderHash: hit.orderID, builder: code, builderCode: code, assetId: T0, side: 'BUY', size: '3', sizeUsdc: '1.5', price: '0.5',
    status: 'CONFIRMED', outcomeIndex: 0, maker: bob.address.toLowerCase(), owner: bobCreds.key, bucketIndex: 0, fee: '0', feeUsdc: '0', builderFee: '0', err_msg: null,
  }, 'a BuilderTrade: the attributed side, sizes in shares and collateral');
  tt.match(attributed.trades[0]?.matchTime, /^\d+$/, 'matchTime: Unix seconds');
  tt.equal(attributed.trades[0]?.createdAt, new Date(Number(attributed.trades[0]?.matchTime) * 1000).toISOString().replace('.000Z', 'Z'), 'createdAt: the same instant, ISO 8601');
  tt.same((await BB.getBuilderTrades({ builder_code: code }, 'LTE=')).trades, [], 'the terminal cursor: nothing');
  tt.same((await BB.getBuilderTrades({ builder_code: '0x' + 'cd'.repeat(32) })).trades, [], 'another code: nothing');
  await AB.cancelAll();
});

t.test('useServerTime: headers stamped with GET /time', async (tt) => {
  const timed = new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(alice) as never, creds: aliceCreds, throwOnError: true, useServerTime: true });
  tt.same(await timed.getApiKeys(), { apiKeys: [aliceCreds.key] });
  tt.same(await timed.getClosedOnlyMode(), { closed_only: false });
});

t.test('deleteApiKey: later L2 calls fail', async (tt) => {
  tt.equal(await B.deleteApiKey(), 'OK');
  const err = await apiError(tt, () => B.getApiKeys());
  tt.equal(err?.status, 401);
  tt.match(err?.message, /^Unauthorized\/Invalid api key/);
  const order = await apiError(tt, () => B.createAndPostOrder({ tokenID: T0, price: 0.3, size: 5, side: Side.BUY }));
  tt.equal(order?.status, 401);
  const derive = await apiError(tt, () => client(bob).deriveApiKey());
  tt.same([derive?.status, derive?.message], [400, 'Could not derive api key!'], 'the deleted slot stays closed');
  tt.same(await A.getApiKeys(), { apiKeys: [aliceCreds.key] }, "Alice's key is untouched");
});
