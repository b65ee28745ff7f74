// Signed order placement, batches, cancels and API keys over HTTP against the whole running service, plus the
// security cases of issue 6: each refused with the right status and the engine's state unchanged.

import t, { type Test } from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader, balancesText, type Answer } from '../support/tradingClient.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const HEADERS = {};

const M = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
if (M === undefined) throw new Error('the demo catalog needs an active market with tick 0.01');
const [T0] = M.tokenIds;

async function funded(collateral = 1000, split = 0): Promise<Trader> {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(collateral) });
  if (split > 0) await host.submit({ type: 'Split', account: trader.account, conditionId: M.conditionId, amount: units(split) });
  return trader;
}

/** Limit order amounts: BUY gives price × size collateral for size shares; SELL the reverse. */
function limit(side: 'BUY' | 'SELL', price: number, size: number): { side: 'BUY' | 'SELL'; makerAmount: number; takerAmount: number; tokenId: string } {
  const shares = units(size);
  const cash = Math.round(price * size * 1_000_000);
  return side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId: T0 } : { side, makerAmount: shares, takerAmount: cash, tokenId: T0 };
}

/** Expects a refusal with `status` whose message contains `text`, and no change to the engine. */
async function refused(tt: Test, what: string, status: number, text: string | RegExp, act: () => Promise<Answer>): Promise<void> {
  const release = await holdTimedCommands(host);
  try {
    const before = engine.stateHash();
    const res = await act();
    tt.equal(res.status, status, `${what}: status`);
    tt.match((res.body as { error?: string }).error ?? '', text, `${what}: message`);
    await host.idle();
    tt.equal(engine.stateHash(), before, `${what}: state unchanged`);
  } finally {
    release();
  }
}

t.test('API keys: create, derive, list, delete', async (tt) => {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  const created = await trader.request('POST', '/auth/api-key', { headers: await trader.l1Headers(7) });
  tt.equal(created.status, 200);
  const creds = created.body as { apiKey: string; secret: string; passphrase: string };
  tt.match(creds.apiKey, /^[0-9a-f-]{36}$/);
  tt.match(creds.passphrase, /^[0-9a-f]{64}$/);
  const again = await trader.request('POST', '/auth/api-key', { headers: await trader.l1Headers(7) });
  tt.same([again.status, again.body], [400, { error: 'Could not create api key' }]);
  const derived = await trader.request('GET', '/auth/derive-api-key', { headers: await trader.l1Headers(7) });
  tt.same(derived.body, creds, 'derive gives the same credentials');
  trader.creds = creds;
  const listed = await trader.l2('GET', '/auth/api-keys');
  tt.same(listed.body, { apiKeys: [creds.apiKey] });
  tt.same((await trader.l2('GET', '/auth/ban-status/closed-only')).body, { closed_only: false });
  const deleted = await trader.l2('DELETE', '/auth/api-key');
  tt.equal(deleted.status, 200);
  tt.equal((await trader.l2('GET', '/auth/api-keys')).status, 401, 'a deleted key no longer authenticates');
  const rederive = await trader.request('GET', '/auth/derive-api-key', { headers: await trader.l1Headers(7) });
  tt.same([rederive.status, rederive.body], [400, { error: 'Could not derive api key!' }], 'a deleted slot stays closed');
  const fresh = await trader.request('GET', '/auth/derive-api-key', { headers: await trader.l1Headers(8) });
  tt.equal(fresh.status, 200, 'derive on a new nonce creates the key');
  tt.not((fresh.body as { apiKey: string }).apiKey, creds.apiKey);
});

t.test('a resting order, a crossing order, then the book and balances', async (tt) => {
  const buyer = await funded();
  const hyphenated = new Trader(svc.baseUrl, buyer.wallet, { headerStyle: 'hyphen' });
  hyphenated.creds = buyer.requireCreds();
  tt.same((await hyphenated.l2('GET', '/auth/api-keys')).body, { apiKeys: [buyer.requireCreds().apiKey] }, 'POLY-ADDRESS style names are accepted too');
  const seller = await funded(100, 50);
  const bid = await buyer.signOrder(limit('BUY', 0.4, 10));
  const placed = await buyer.postOrder(bid);
  tt.equal(placed.status, 200, placed.text);
  const resting = placed.body as { success: boolean; orderID: string; status: string; makingAmount: string; tradeIDs: string[] };
  tt.same([resting.success, resting.status, resting.makingAmount, resting.tradeIDs], [true, 'live', '0', []]);
  tt.match(resting.orderID, /^0x[0-9a-f]{64}$/);
  tt.equal(engine.order(resting.orderID)?.remaining, units(10), 'the order rests in the engine');
  tt.equal(engine.balances(buyer.account)?.reserved, units(4), 'its collateral is reserved');

  const ask = await seller.signOrder(limit('SELL', 0.4, 4));
  const hit = await seller.postOrder(ask, 'FOK');
  tt.equal(hit.status, 200, hit.text);
  const matched = hit.body as { status: string; makingAmount: string; takingAmount: string; tradeIDs: string[]; transactionsHashes: string[] };
  tt.same([matched.status, matched.makingAmount, matched.takingAmount], ['matched', '4', '1.6']);
  tt.equal(matched.tradeIDs.length, 1);
  tt.equal(matched.transactionsHashes.length, 1);
  tt.equal(engine.order(resting.orderID)?.remaining, units(6), 'the bid was partly filled');

  const book = await fetch(`${svc.baseUrl}/clob/book?token_id=${T0}`).then((r) => r.json() as Promise<{ bids: { price: string; size: string }[] }>);
  tt.same(book.bids.at(-1), { price: '0.4', size: '6' });

  const duplicate = await buyer.postOrder(bid);
  tt.same([duplicate.status, duplicate.body], [400, { error: `order ${resting.orderID} is invalid. Duplicated.` }], 'a replayed order is refused');
});

t.test('a token id sent with leading zeros is the same token', async (tt) => {
  const trader = await funded();
  const placed = await trader.postOrder(await trader.signOrder({ ...limit('BUY', 0.25, 5), tokenId: '00' + T0 }));
  tt.equal(placed.status, 200, placed.text);
  const id = (placed.body as { orderID: string }).orderID;
  tt.equal(engine.order(id)?.tokenId, T0, 'it rests in the market of the token');
});

t.test('POST /orders: one response per order, failures carry errorMsg', async (tt) => {
  const trader = await funded();
  const good = await trader.signOrder(limit('BUY', 0.3, 5));
  const offTick = await trader.signOrder(limit('BUY', 0.305, 10));
  const other = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, HEADERS);
  const foreign = await other.signOrder(limit('BUY', 0.3, 5));
  const key = trader.requireCreds().apiKey;
  const res = await trader.l2('POST', '/orders', [good, offTick, foreign].map((order) => ({ order, owner: key, orderType: 'GTC' })));
  tt.equal(res.status, 200, res.text);
  const items = res.body as { success: boolean; errorMsg: string; status: string; orderID: string }[];
  tt.equal(items.length, 3);
  tt.same([items[0]?.success, items[0]?.status, items[0]?.errorMsg], [true, 'live', '']);
  tt.match(items[1]?.errorMsg, /breaks minimum tick size rule/);
  tt.equal(items[1]?.success, false);
  tt.equal(items[2]?.errorMsg, 'the order signer address has to be the address of the API KEY');

  const tooMany = await trader.l2('POST', '/orders', Array.from({ length: 16 }, () => ({ order: good, owner: key, orderType: 'GTC' })));
  tt.same([tooMany.status, tooMany.body], [400, { error: 'Too many orders in payload: 16, max allowed: 15' }]);
});

t.test('cancels answer {canceled, not_canceled}', async (tt) => {
  const trader = await funded();
  const ids: string[] = [];
  for (const price of [0.11, 0.12, 0.13, 0.14]) {
    const res = await trader.postOrder(await trader.signOrder(limit('BUY', price, 5)));
    ids.push((res.body as { orderID: string }).orderID);
  }
  const one = await trader.l2('DELETE', '/order', { orderID: ids[0] });
  tt.same(one.body, { canceled: [ids[0]], not_canceled: {} });
  const again = await trader.l2('DELETE', '/order', { orderID: ids[0] });
  tt.same(again.body, { canceled: [], not_canceled: { [ids[0] as string]: 'Order already canceled' } });
  const unknown = '0x' + 'ab'.repeat(32);
  const list = await trader.l2('DELETE', '/orders', [ids[1], unknown, ids[1]]);
  tt.same(list.body, { canceled: [ids[1]], not_canceled: { [unknown]: 'Order not found' } });
  const market = await trader.l2('DELETE', '/cancel-market-orders', { market: M.conditionId, asset_id: T0 });
  tt.same((market.body as { canceled: string[] }).canceled.sort(), [ids[2], ids[3]].sort());
  tt.same((await trader.l2('DELETE', '/cancel-all')).body, { canceled: [], not_canceled: {} });
  tt.equal(engine.balances(trader.account)?.reserved, 0, 'every reservation released');

  const other = await funded();
  const theirs = (await other.postOrder(await other.signOrder(limit('BUY', 0.15, 5)))).body as { orderID: string };
  const stolen = await trader.l2('DELETE', '/order', { orderID: theirs.orderID });
  tt.same(stolen.body, { canceled: [], not_canceled: { [theirs.orderID]: 'Order not found' } }, "another account's order cannot be cancelled");
  tt.equal(engine.order(theirs.orderID)?.remaining, units(5));
  const bad = await trader.l2('DELETE', '/order', { orderID: 'nope' });
  tt.same([bad.status, bad.body], [400, { error: 'Invalid orderID' }]);
});

t.test('security: each refusal has its status and leaves the state unchanged', async (tt) => {
  const trader = await funded();
  const other = await funded();
  const key = trader.requireCreds().apiKey;
  const order = await trader.signOrder(limit('BUY', 0.2, 5));

  await refused(tt, 'bad signature', 400, /^Invalid order payload: invalid order signature/, async () => {
    const sig = String(order.signature);
    const flipped = sig.slice(0, 10) + (sig[10] === 'a' ? 'b' : 'a') + sig.slice(11);
    return trader.postOrder({ ...order, signature: flipped });
  });
  await refused(tt, 'amount changed after signing', 400, /^Invalid order payload: invalid order signature/, () => trader.postOrder({ ...order, makerAmount: '2000000' }));
  await refused(tt, "signer not the key's address", 400, 'the order signer address has to be the address of the API KEY', async () => trader.postOrder(await other.signOrder(limit('BUY', 0.2, 5))));
  await refused(tt, 'maker not the signer (EOA)', 400, /maker = signer/, async () => trader.postOrder(await trader.signOrder({ ...limit('BUY', 0.2, 5), maker: other.address })));
  await refused(tt, 'maker never authorised the signer (proxy)', 400, /has not authorised signer/, async () => trader.postOrder(await trader.signOrder({ ...limit('BUY', 0.2, 5), maker: other.address, signatureType: 1 })));
  await refused(tt, "another account's key as owner", 400, 'the order owner has to be the owner of the API KEY', () => trader.l2('POST', '/order', { order, owner: other.requireCreds().apiKey, orderType: 'GTC' }));
  await refused(tt, 'stale order timestamp', 400, /Timestamp/, async () => trader.postOrder(await trader.signOrder({ ...limit('BUY', 0.2, 5), timestamp: Date.now() - 3_600_000 })));
  await refused(tt, 'future order timestamp', 400, /Timestamp/, async () => trader.postOrder(await trader.signOrder({ ...limit('BUY', 0.2, 5), timestamp: Date.now() + 3_600_000 })));
  await refused(tt, 'wrong chain in the signature', 400, /invalid order signature/, async () => {
    const wrongChain = new Trader(svc.baseUrl, trader.wallet, { ...HEADERS, domains: { chainId: 1, exchangeAddress: '0xE111180000d2663C0091e4f400237545B87B996B', negRiskExchangeAddress: '0xe2222d279d744050d28e00520010520000310F59' } });
    return trader.postOrder(await wrongChain.signOrder(limit('BUY', 0.2, 5)));
  });

  const body = JSON.stringify({ order, owner: key, orderType: 'GTC' });
  const headers = trader.l2Headers('POST', '/order', body);
  await refused(tt, 'body changed after the L2 signature', 401, /^Unauthorized\/Invalid api key: POLY_SIGNATURE does not match/, () => trader.request('POST', '/order', { headers, body: body.replace('"GTC"', '"FOK"') }));
  await refused(tt, 'wrong passphrase', 401, /wrong passphrase/, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', body, { ...trader.requireCreds(), passphrase: 'f'.repeat(64) }), body }));
  await refused(tt, 'stale L2 timestamp', 401, /POLY_TIMESTAMP/, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', body, trader.requireCreds(), Math.floor(Date.now() / 1000) - 600), body }));
  await refused(tt, 'future L2 timestamp', 401, /POLY_TIMESTAMP/, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', body, trader.requireCreds(), Math.floor(Date.now() / 1000) + 600), body }));
  await refused(tt, "another account's API key with its passphrase", 401, /POLY_ADDRESS is not the address of this API key/, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', body, other.requireCreds()), body }));
  await refused(tt, 'no auth headers', 401, /missing header/, () => trader.request('POST', '/order', { body }));
  await refused(tt, 'bad JSON with good auth', 400, /^Invalid order payload/, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', '{oops'), body: '{oops' }));
  await refused(tt, 'bad JSON with bad auth is a 401', 401, /Unauthorized/, () => trader.request('POST', '/order', { body: '{oops' }));

  const ok = await trader.postOrder(order);
  tt.equal(ok.status, 200, 'the untampered order is accepted');
  // The engine refuses a replay itself: its refusal is logged (the sequence advances), funds and books do not move.
  const balances = balancesText(engine, trader.account);
  const open = engine.openOrders(trader.account).length;
  const replay = await trader.postOrder(order);
  tt.same([replay.status, replay.body], [400, { error: `order ${(ok.body as { orderID: string }).orderID} is invalid. Duplicated.` }], 'replayed order refused');
  tt.equal(balancesText(engine, trader.account), balances, 'replay: balances unchanged');
  tt.equal(engine.openOrders(trader.account).length, open, 'replay: open orders unchanged');
});
