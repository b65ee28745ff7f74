// Every public method of the official TypeScript client (@polymarket/clob-client-v2, unchanged) against the
// running service, with funded wallets, a builder configuration and real ids: each call returns a success
// shape. The list of methods is read from the client's own type declarations, so a method the client gains is
// a failure here until it is covered. A method listed as pending (tap todo) is called all the same and
// reported, not skipped silently; none is pending now (the scoring and rewards methods came with issue 35).

import { AssetType, ClobClient, OrderType, PriceHistoryInterval, Side, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Wallet } from 'ethers';
import t, { type Test } from 'tap';
import { clientSigner } from '../auth/fixtures.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const CLOB = `${svc.baseUrl}/clob`;

/** The client's public methods, from its type declarations (neither private nor protected, not the constructor). */
function publicMethods(): string[] {
  const require = createRequire(import.meta.url);
  const dts = readFileSync(join(dirname(require.resolve('@polymarket/clob-client-v2')), 'client.d.ts'), 'utf8');
  const body = dts.slice(dts.indexOf('declare class ClobClient'));
  const names = new Set<string>();
  for (const line of body.slice(0, body.indexOf('\n}')).split('\n')) {
    const m = /^ {2}([A-Za-z_]\w*)(<.*?>)?\(/.exec(line);
    if (m !== null && m[1] !== 'constructor') names.add(m[1] as string);
  }
  return [...names].sort();
}

/** Methods called and reported as pending (none now). */
const PENDING = new Set<string>([]);

function hex(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}
const CID = `0x${hex('client-surface-market')}`;
const [YES, NO] = [BigInt(`0x${hex('client-surface-yes')}`).toString(), BigInt(`0x${hex('client-surface-no')}`).toString()];

async function must(command: Parameters<typeof host.submit>[0]): Promise<void> {
  const events = await host.submit(command);
  const refused = events.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
}

await must({ type: 'ListMarket', conditionId: CID, tokenIds: [YES, NO], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
// A liquidity rewards program: $100 a day, within 15 cents of the adjusted midpoint, 10 shares and up.
await must({ type: 'SetMarketRewards', conditionId: CID, dailyRate: units(100), maxSpread: 150_000, minSize: units(10) });
const alice = Wallet.createRandom() as unknown as Wallet; // maker, with a builder key
const bob = Wallet.createRandom() as unknown as Wallet; // taker
await must({ type: 'Deposit', account: alice.address.toLowerCase(), amount: units(200) });
await must({ type: 'Split', account: alice.address.toLowerCase(), conditionId: CID, amount: units(100) });
await must({ type: 'Deposit', account: bob.address.toLowerCase(), amount: units(100) });

function client(wallet: Wallet, creds?: ApiKeyCreds, builderCode?: string): ClobClient {
  return new ClobClient({
    host: CLOB, chain: 137, signer: clientSigner(wallet) as never, throwOnError: true,
    ...(creds === undefined ? {} : { creds }), ...(builderCode === undefined ? {} : { builderConfig: { builderCode } }),
  });
}

const called = new Set<string>();
/** The test the calls and their checks report to. */
let T: Test;
const pendingAnswers: string[] = [];

/** Calls `name` through `act` and checks the answer with `check`; pending methods are reported as todo. */
async function call<R>(name: string, act: () => Promise<R>, check: (answer: R) => void): Promise<R | undefined> {
  called.add(name);
  if (PENDING.has(name)) {
    const outcome = await act().then((a) => `answered ${JSON.stringify(a).slice(0, 80)}`, (e: unknown) => `failed: ${String(e).slice(0, 80)}`);
    pendingAnswers.push(`${name}: ${outcome}`);
    T.todo(`${name}: pending; ${outcome}`, async () => undefined);
    return undefined;
  }
  let answer: R;
  try {
    answer = await act();
  } catch (error) {
    T.fail(`${name} threw: ${String(error)}`);
    return undefined;
  }
  T.pass(`${name} answered`);
  check(answer);
  return answer;
}

t.test('each method, in the order a trading session calls them', async (session) => {
  T = session;
  const anon = new ClobClient({ host: CLOB, chain: 137, throwOnError: true });
  const signIn = client(alice);

  // Service and market reads (L0).
  await call('getOk', () => anon.getOk(), (a) => T.equal(a, 'OK'));
  await call('getVersion', () => anon.getVersion(), (a) => T.equal(a, 2));
  await call('getServerTime', () => anon.getServerTime(), (a) => T.ok(Math.abs(Number(a) - Date.now() / 1000) < 10));
  for (const name of ['getSamplingSimplifiedMarkets', 'getSamplingMarkets', 'getSimplifiedMarkets', 'getMarkets'] as const) {
    await call(name, () => anon[name](), (a) => T.ok(Array.isArray(a.data) && typeof a.next_cursor === 'string', `${name}: a page`));
  }
  await call('getMarket', () => anon.getMarket(CID), (a: { condition_id?: string }) => T.equal(a.condition_id, CID));
  await call('getClobMarketInfo', () => anon.getClobMarketInfo(CID), (a) => T.match(a, { c: CID, t: [{ t: YES }, { t: NO }] }));
  await call('getTickSize', () => anon.getTickSize(YES), (a) => T.equal(a, '0.01'));
  await call('getNegRisk', () => anon.getNegRisk(YES), (a) => T.equal(a, false));
  await call('getFeeRateBps', () => anon.getFeeRateBps(YES), (a) => T.equal(a, 0));
  await call('getFeeExponent', () => anon.getFeeExponent(YES), (a) => T.equal(typeof a, 'number'));

  // Keys (L1, then L2).
  const aliceCreds = (await call('createOrDeriveApiKey', () => signIn.createOrDeriveApiKey(), (a) => T.match(a.key, /^[0-9a-f-]{36}$/))) as ApiKeyCreds;
  await call('deriveApiKey', () => signIn.deriveApiKey(), (a) => T.same(a, aliceCreds));
  const second = (await call('createApiKey', () => signIn.createApiKey(1), (a) => T.not(a.key, aliceCreds.key))) as ApiKeyCreds;
  const bobCreds = await new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(bob) as never, throwOnError: false }).createOrDeriveApiKey();
  const A0 = client(alice, aliceCreds);
  await call('getApiKeys', () => A0.getApiKeys(), (a) => T.same([...a.apiKeys].sort(), [aliceCreds.key, second.key].sort()));
  await call('getClosedOnlyMode', () => A0.getClosedOnlyMode(), (a) => T.same(a, { closed_only: false }));
  await call('deleteApiKey', () => client(alice, second).deleteApiKey(), (a) => T.equal(a, 'OK'));

  const readonly = await call('createReadonlyApiKey', () => A0.createReadonlyApiKey(), (a) => T.match(a.apiKey, /^[0-9a-f-]{36}$/));
  await call('getReadonlyApiKeys', () => A0.getReadonlyApiKeys(), (a) => T.ok(JSON.stringify(a).includes(readonly?.apiKey ?? '?'), 'the new key is listed'));
  await call('deleteReadonlyApiKey', () => A0.deleteReadonlyApiKey(readonly?.apiKey ?? ''), (a) => T.not(a, undefined));

  const builderKey = await call('createBuilderApiKey', () => A0.createBuilderApiKey(), (a) => T.match(a, { key: /^[0-9a-f-]{36}$/, secret: /=$/, passphrase: /^[0-9a-f]{64}$/ }));
  await call('getBuilderApiKeys', () => A0.getBuilderApiKeys(), (a) => T.ok(a.some((k) => k.key === builderKey?.key), 'listed'));
  const builderCode = (builderKey as unknown as { builderCode?: string } | undefined)?.builderCode ?? `0x${'0'.repeat(24)}${alice.address.slice(2).toLowerCase()}`;
  const A = client(alice, aliceCreds, builderCode);
  const B = client(bob, bobCreds);

  // Heartbeats.
  const beat = await call('postHeartbeat', () => A.postHeartbeat(), (a) => T.match(a, { heartbeat_id: /^[0-9a-f-]{36}$/ }));

  // Orders: build, post, batch; books and prices with orders in them.
  const ask = await call('createOrder', () => A.createOrder({ tokenID: YES, price: 0.6, size: 20, side: Side.SELL }), (a) => T.match(a, { tokenId: YES, builder: builderCode }));
  // The V3 exchange's order, built and signed locally (the client calls nothing): this venue serves V2 orders.
  await call('createExchangeV3OrderFromAmounts', () => A.createExchangeV3OrderFromAmounts({ tokenID: YES, makerAmount: '1000000', takerAmount: '5000000', side: Side.BUY }), (a) => T.match(a, { signature: /^0x[0-9a-f]+$/ }));
  const posted = await call('postOrder', () => A.postOrder(ask as never, OrderType.GTC), (a) => T.match(a, { success: true, status: 'live' }));
  const bid = await call('createAndPostOrder', () => A.createAndPostOrder({ tokenID: YES, price: 0.4, size: 20, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC), (a) => T.match(a, { success: true, status: 'live' }));
  const batch = await call('postOrders', async () => A.postOrders([{ order: await A.createOrder({ tokenID: YES, price: 0.3, size: 5, side: Side.BUY }), orderType: OrderType.GTC }, { order: await A.createOrder({ tokenID: YES, price: 0.31, size: 5, side: Side.BUY }), orderType: OrderType.GTC }]), (a) => T.ok(a.length === 2 && a.every((o) => o.success), 'both rest'));
  const book = await call('getOrderBook', () => B.getOrderBook(YES), (a) => T.same(a.asks.at(-1), { price: '0.6', size: '20' }));
  await call('getOrderBooks', () => B.getOrderBooks([{ token_id: YES, side: Side.BUY }, { token_id: NO, side: Side.BUY }]), (a) => T.equal(a.length, 2));
  await call('getOrderBookHash', () => B.getOrderBookHash({ ...(book as NonNullable<typeof book>) }), (a) => T.equal(a, book?.hash));
  await call('getMidpoint', () => B.getMidpoint(YES), (a) => T.same(a, { mid: '0.5' }));
  await call('getMidpoints', () => B.getMidpoints([{ token_id: YES, side: Side.BUY }]), (a) => T.same(a, { [YES]: '0.5' }));
  await call('getPrice', () => B.getPrice(YES, 'BUY'), (a) => T.ok(typeof a.price === 'string'));
  await call('getPrices', () => B.getPrices([{ token_id: YES, side: Side.BUY }]), (a) => T.ok(typeof a[YES]?.BUY === 'string'));
  await call('getSpread', () => B.getSpread(YES), (a) => T.same(a, { spread: '0.2' }));
  await call('getSpreads', () => B.getSpreads([{ token_id: YES, side: Side.BUY }]), (a) => T.same(a, { [YES]: '0.2' }));
  await call('calculateMarketPrice', () => B.calculateMarketPrice(YES, Side.BUY, 3, OrderType.FOK), (a) => T.equal(a, 0.6));

  // Bob takes: a market buy and a market sell; trades, prices and history follow.
  const market = await call('createMarketOrder', () => B.createMarketOrder({ tokenID: YES, amount: 3, side: Side.BUY }), (a) => T.match(a, { tokenId: YES, side: Side.BUY }));
  const bought = await B.postOrder(market as never, OrderType.FOK);
  T.match(bought, { success: true, status: 'matched' }, 'the market order filled');
  await call('createAndPostMarketOrder', () => B.createAndPostMarketOrder({ tokenID: YES, amount: 2, side: Side.SELL }, undefined, OrderType.FAK), (a) => T.match(a, { success: true, status: 'matched' }));
  await call('getLastTradePrice', () => B.getLastTradePrice(YES), (a) => T.same(a, { price: '0.4', side: 'SELL' }));
  await call('getLastTradesPrices', () => B.getLastTradesPrices([{ token_id: YES, side: Side.BUY }]), (a) => T.match(a, [{ token_id: YES, price: '0.4' }]));
  await call('getPricesHistory', () => B.getPricesHistory({ market: YES, interval: PriceHistoryInterval.MAX }), (a) => T.ok(Array.isArray((a as unknown as { history: unknown[] }).history) || Array.isArray(a), 'a history'));
  await call('getOrder', () => A.getOrder(posted?.orderID ?? ''), (a) => T.match(a, { id: posted?.orderID, status: 'LIVE', size_matched: '5' }));
  await call('getOpenOrders', () => A.getOpenOrders({ market: CID }), (a) => T.equal(a.length, 4));
  await call('getTrades', () => B.getTrades(), (a) => T.equal(a.length, 2));
  await call('getTradesPaginated', () => A.getTradesPaginated({ market: CID }), (a) => T.match(a, { count: 2, next_cursor: 'LTE=' }));
  await call('getBuilderTrades', () => B.getBuilderTrades({ builder_code: builderCode }), (a) => T.equal(a.trades.length, 2, 'both fills hit orders carrying the code'));
  await call('getMarketTradesEvents', () => B.getMarketTradesEvents(CID), (a) => T.ok(a.length >= 2 && a.every((e) => e.market.condition_id === CID), 'the market\'s trades'));
  await call('getBalanceAllowance', () => A.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }), (a) => T.match(a, { balance: /^\d+$/ }));
  await call('updateBalanceAllowance', () => A.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL }), () => T.pass('answered'));
  await call('getPreMigrationOrders', () => A.getPreMigrationOrders(), (a) => T.same(a, []));

  // Scoring and rewards: Alice's ask (0.6, 15 left) and bid (0.4, 18 left) rest 10 cents from the 0.5 midpoint,
  // inside the program's 15; her 5-share bids are under its 10-share minimum. She alone scores.
  const orderId = posted?.orderID ?? '';
  await call('isOrderScoring', () => A.isOrderScoring({ order_id: orderId }), (a) => T.same(a, { scoring: true }));
  await call('areOrdersScoring', () => A.areOrdersScoring({ orderIds: [orderId, batch?.[0]?.orderID ?? ''] }), (a) => T.same(a, { [orderId]: true, [batch?.[0]?.orderID ?? '']: false }));
  T.same(await B.isOrderScoring({ order_id: orderId }), { scoring: false }, "another account's order is not disclosed");
  const today = new Date().toISOString().slice(0, 10);
  await call('getEarningsForUserForDay', () => A.getEarningsForUserForDay(today), (a) => T.ok(Array.isArray(a) && a.every((e) => e.condition_id === CID && e.date === `${today}T00:00:00Z` && typeof e.earnings === 'number'), `${a.length} earnings of today so far`));
  await call('getTotalEarningsForUserForDay', () => A.getTotalEarningsForUserForDay(today), (a) => T.ok(Array.isArray(a) && a.length <= 1 && a.every((e) => e.maker_address === alice.address.toLowerCase() && e.asset_rate === 1), 'the day\'s total, one asset'));
  // Beside the demo catalog's programs.
  await call('getUserEarningsAndMarketsConfig', () => A.getUserEarningsAndMarketsConfig(today), (a) => T.match(a.find((m) => m.condition_id === CID), { condition_id: CID, rewards_max_spread: 15, rewards_min_size: 10, earning_percentage: 100, rewards_config: [{ rate_per_day: 100 }], earnings: [{ asset_rate: 1 }] }));
  await call('getRewardPercentages', () => A.getRewardPercentages(), (a) => T.same(a, { [CID]: 100 }));
  await call('getCurrentRewards', () => A.getCurrentRewards(), (a) => T.match(a.find((m) => m.condition_id === CID), { condition_id: CID, rewards_max_spread: 15, rewards_min_size: 10, rewards_config: [{ rate_per_day: 100, end_date: '2500-12-31' }], total_daily_rate: 100 }));
  // Token prices are the displayed price: the spread (0.4 to 0.6) is over 0.10, so the last trade (0.4).
  await call('getRawRewardsForMarket', () => A.getRawRewardsForMarket(CID), (a) => T.match(a, [{ condition_id: CID, tokens: [{ token_id: YES, price: 0.4 }, { token_id: NO, price: 0.6 }], rewards_config: [{ rate_per_day: 100 }] }]));

  // Cancels; the notifications they and the fills made; the heartbeat chain; the builder key revoked.
  await call('cancelOrder', () => A.cancelOrder({ orderID: bid?.orderID ?? '' }), (a) => T.same(a, { canceled: [bid?.orderID], not_canceled: {} }));
  await call('cancelOrders', () => A.cancelOrders([batch?.[0]?.orderID ?? '']), (a) => T.same(a.canceled, [batch?.[0]?.orderID]));
  await call('cancelMarketOrders', () => A.cancelMarketOrders({ market: CID, asset_id: YES }), (a) => T.same([...a.canceled].sort(), [posted?.orderID, batch?.[1]?.orderID].sort()));
  await call('cancelAll', () => A.cancelAll(), (a) => T.same(a, { canceled: [], not_canceled: {} }));
  const notes = await call('getNotifications', () => A.getNotifications(), (a) => T.ok(a.length >= 4 && a.every((n) => typeof n.type === 'number'), `${a.length} notifications`));
  const ids = (notes ?? []).map((n) => String((n as unknown as { id: unknown }).id));
  await call('dropNotifications', () => A.dropNotifications({ ids }), () => T.pass('answered'));
  T.same(await A.getNotifications(), [], 'dropped');
  await A.postHeartbeat(beat?.heartbeat_id);
  await call('revokeBuilderApiKey', () => A0.revokeBuilderApiKey(), () => T.pass('answered'));
  T.ok((await A0.getBuilderApiKeys()).every((k) => k.key !== builderKey?.key || typeof k.revokedAt === 'string'), 'revoked');
});

t.test('every public method of the client was called', async (tt) => {
  const methods = publicMethods();
  tt.ok(methods.length >= 60, `${methods.length} public methods`);
  tt.same(methods.filter((m) => !called.has(m)), [], 'none left out');
  tt.same([...PENDING].filter((m) => !methods.includes(m)), [], 'the pending ones are methods of the client');
  if (pendingAnswers.length > 0) tt.comment(`pending: ${pendingAnswers.join('; ')}`);
});
