// Read-only and builder API keys end to end, over real HTTP through the header edge (whose rewriting of `_`
// in header names is what lets POLY_READONLY_API_KEY and POLY_BUILDER_* reach uWS): the official V2 client
// (@polymarket/clob-client-v2, unchanged) creates, lists and deletes the keys; raw requests read with a
// read-only key exactly what the owner reads and are refused every write; orders sent with
// @polymarket/builder-signing-sdk headers are attributed to the builder and found by GET /builder/trades.

import { ApiError, ClobClient, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { BuilderConfig, type BuilderApiKeyCreds } from '@polymarket/builder-signing-sdk';
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { MAX_ACCESS_KEYS } from '../../engine/index.js';
import { units } from '../engine/scenario.js';
import { clientSigner } from '../auth/fixtures.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader, type Answer } from '../support/tradingClient.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const CLOB = `${svc.baseUrl}/clob`;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const READONLY_REFUSED = 'Unauthorized/Invalid api key: a read-only API key (POLY_READONLY_API_KEY) can only read; this request needs L2 headers';

function hash32(label: string): string {
  return '0x' + createHash('sha256').update(label).digest('hex');
}
const CID = hash32('access-keys-market');
const [T0, T1] = [BigInt(hash32('access-keys-yes')).toString(), BigInt(hash32('access-keys-no')).toString()];

async function must(command: Parameters<typeof host.submit>[0]): Promise<void> {
  const events = await host.submit(command);
  const refused = events.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
}

await must({ type: 'ListMarket', conditionId: CID, tokenIds: [T0, T1], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
const alice = new Trader(svc.baseUrl); // owner of the read-only keys; sells T0
const bob = new Trader(svc.baseUrl); // buys T0 through Carol's app
const carol = new Trader(svc.baseUrl); // the builder
await must({ type: 'Deposit', account: alice.account, amount: units(100) });
await must({ type: 'Split', account: alice.account, conditionId: CID, amount: units(50) });
await must({ type: 'Deposit', account: bob.account, amount: units(50) });
for (const trader of [alice, bob, carol]) await trader.signIn();

function client(trader: Trader): ClobClient {
  const { apiKey, secret, passphrase } = trader.requireCreds();
  const creds: ApiKeyCreds = { key: apiKey, secret, passphrase };
  return new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(trader.wallet) as never, creds, throwOnError: true });
}
const A = client(alice);
const C = client(carol);

const ask = await alice.postOrder(await alice.signOrder({ tokenId: T0, side: 'SELL', makerAmount: units(20), takerAmount: units(10) }));
if (ask.status !== 200) throw new Error(`alice's ask: ${ask.status} ${ask.text}`);
const askId = (ask.body as { orderID: string }).orderID;

/** A raw request to the CLOB surface with a read-only key (underscore names unless `hyphen`). */
async function readonly(path: string, key: string, address: string, init: { method?: string; body?: string; hyphen?: boolean } = {}): Promise<Answer> {
  const headers: Record<string, string> = init.hyphen === true ? { 'POLY-READONLY-API-KEY': key, 'POLY-ADDRESS': address } : { POLY_READONLY_API_KEY: key, POLY_ADDRESS: address };
  return alice.request(init.method ?? 'GET', path, { headers, body: init.body });
}

/** Fails `tt` when `act` does not throw the official client's ApiError; returns it. */
async function apiError(tt: Test, act: () => Promise<unknown>): Promise<ApiError | undefined> {
  try {
    tt.fail(`expected an ApiError, got ${JSON.stringify(await act())}`);
  } catch (error) {
    if (error instanceof ApiError) return error;
    tt.fail(`expected an ApiError, got ${String(error)}`);
  }
  return undefined;
}

let readonlyKey = '';

/**
 * Creates a key with a raw L2 request stamped `n` seconds ahead, n counting up (within the 30 s window, and
 * unlike any request signed now): creates are applied once per signed request, and the official client's
 * create has no body, so two creates signed in one second are one request.
 */
let signedAhead = 0;
async function createKey<T>(trader: Trader, path: '/auth/readonly-api-key' | '/auth/builder-api-key'): Promise<T> {
  signedAhead += 1;
  const headers = trader.l2Headers('POST', path, '', trader.requireCreds(), Math.floor(Date.now() / 1000) + signedAhead);
  const got = await trader.request('POST', path, { headers });
  if (got.status !== 200) throw new Error(`${path}: ${got.status} ${got.text}`);
  return got.body as T;
}

t.test('the official client creates and lists read-only keys', async (tt) => {
  const created = await A.createReadonlyApiKey();
  tt.same(Object.keys(created), ['apiKey']);
  tt.match(created.apiKey, UUID_V4);
  readonlyKey = created.apiKey;
  tt.same(await A.getReadonlyApiKeys(), [readonlyKey]);
  tt.same(await client(bob).getReadonlyApiKeys(), [], "another address's keys are its own");
  tt.equal(engine.apiKey(readonlyKey), undefined, 'a read-only key is no L2 key');
});

t.test('with POLY_READONLY_API_KEY and POLY_ADDRESS, every private read answers exactly what the owner reads', async (tt) => {
  const edgeBefore = svc.service.edge?.stats.underscoreHeads ?? 0;
  for (const path of ['/data/orders', `/data/order/${askId}`, '/data/trades', '/balance-allowance?asset_type=COLLATERAL&signature_type=0', `/balance-allowance?asset_type=CONDITIONAL&token_id=${T0}`, '/balance-allowance/update?asset_type=COLLATERAL', '/auth/ban-status/closed-only']) {
    const query = path.indexOf('?');
    const owner = await alice.l2('GET', query < 0 ? path : path.slice(0, query), undefined, query < 0 ? '' : path.slice(query));
    const got = await readonly(path, readonlyKey, alice.address);
    tt.equal(got.status, 200, `${path}: ${got.text}`);
    tt.same(got.body, owner.body, `${path}: the owner's answer`);
  }
  const orders = (await readonly('/data/orders?maker_address=' + alice.address, readonlyKey, alice.address)).body as { data: { id: string }[] };
  tt.same(orders.data.map((o) => o.id), [askId], "the owner's open order, as upstream's example asks (maker_address)");
  const lower = await readonly('/data/orders', readonlyKey, alice.account, { hyphen: true });
  tt.equal(lower.status, 200, 'hyphenated names and a lower-case address work too');
  tt.ok((svc.service.edge?.stats.underscoreHeads ?? 0) > edgeBefore, 'the underscore names went through the header edge');
});

t.test('a read-only key of another address, or none known, is a 401', async (tt) => {
  const wrong = await readonly('/data/orders', readonlyKey, bob.address);
  tt.equal(wrong.status, 401);
  tt.same(wrong.body, { error: 'Unauthorized/Invalid api key: POLY_ADDRESS is not the address of this read-only API key' });
  const unknown = await readonly('/data/trades', '5e0f7b7c-1d2e-4f3a-8b4c-5d6e7f8a9b0c', alice.address);
  tt.same([unknown.status, unknown.body], [401, { error: 'Unauthorized/Invalid api key: unknown or deleted read-only API key' }]);
  const noAddress = await alice.request('GET', '/data/orders', { headers: { POLY_READONLY_API_KEY: readonlyKey } });
  tt.same([noAddress.status, noAddress.body], [401, { error: 'Unauthorized/Invalid api key: missing header POLY_ADDRESS' }]);
});

t.test('GET /auth/validate-readonly-api-key says whether a key is a live read-only key of an address', async (tt) => {
  const valid = async (address: string, key: string): Promise<unknown> => (await alice.request('GET', `/auth/validate-readonly-api-key?address=${address}&key=${key}`)).body;
  tt.same(await valid(alice.address, readonlyKey), { valid: true });
  tt.same(await valid(alice.account, readonlyKey), { valid: true }, 'any case of the address');
  tt.same(await valid(bob.address, readonlyKey), { valid: false });
  tt.same(await valid(alice.address, alice.requireCreds().apiKey), { valid: false }, 'an L2 key is not a read-only key');
  tt.equal((await alice.request('GET', '/auth/validate-readonly-api-key?address=' + alice.address)).status, 400);
});

t.test('every write presented with a read-only key is a 401 with the read-only error, and changes nothing', async (tt) => {
  tt.teardown(await holdTimedCommands(host));
  const before = engine.stateHash();
  const openBefore = engine.openOrders(alice.account).map((o) => o.id);
  const order = await alice.signOrder({ tokenId: T0, side: 'SELL', makerAmount: units(10), takerAmount: units(5) });
  const orderBody = JSON.stringify({ order, owner: alice.requireCreds().apiKey, orderType: 'GTC' });
  const writes: [string, string, unknown?][] = [
    ['POST', '/order', orderBody],
    ['POST', '/orders', `[${orderBody}]`],
    ['DELETE', '/order', { orderID: askId }],
    ['DELETE', '/orders', [askId]],
    ['DELETE', '/cancel-all'],
    ['DELETE', '/cancel-market-orders', { market: CID }],
    ['POST', '/split', { market: CID, amount: '1000000' }],
    ['POST', '/merge', { market: CID, amount: '1000000' }],
    ['POST', '/redeem', { market: CID }],
    ['POST', '/v1/heartbeats', { heartbeat_id: '' }],
    ['POST', '/auth/readonly-api-key'],
    ['GET', '/auth/readonly-api-keys'],
    ['DELETE', '/auth/readonly-api-key', { key: readonlyKey }],
    ['POST', '/auth/builder-api-key'],
    ['GET', '/auth/builder-api-key'],
    ['DELETE', '/auth/builder-api-key'],
    ['GET', '/auth/api-keys'],
    ['DELETE', '/auth/api-key'],
  ];
  for (const [method, path, body] of writes) {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const got = await readonly(path, readonlyKey, alice.address, { method, body: text });
    tt.same([got.status, got.body], [401, { error: READONLY_REFUSED }], `${method} ${path}`);
  }
  await host.idle();
  tt.equal(engine.stateHash(), before, 'the engine state is unchanged');
  tt.same(engine.openOrders(alice.account).map((o) => o.id), openBefore, "alice's order is still open");
  tt.same(await A.getReadonlyApiKeys(), [readonlyKey], 'and her read-only key still exists');
});

t.test('a deleted read-only key is refused at once; deleting it again is a 404', async (tt) => {
  tt.equal(await A.deleteReadonlyApiKey(readonlyKey), true);
  tt.same(await A.getReadonlyApiKeys(), []);
  const read = await readonly('/data/orders', readonlyKey, alice.address);
  tt.same([read.status, read.body], [401, { error: 'Unauthorized/Invalid api key: unknown or deleted read-only API key' }]);
  tt.same((await alice.request('GET', `/auth/validate-readonly-api-key?address=${alice.address}&key=${readonlyKey}`)).body, { valid: false });
  const again = await apiError(tt, () => A.deleteReadonlyApiKey(readonlyKey));
  tt.equal(again?.status, 404);
  tt.match(again?.message, /readonly API key not found/);
});

t.test('a create request sent again unchanged is refused as a replay, not answered with another key', async (tt) => {
  signedAhead += 1;
  const headers = alice.l2Headers('POST', '/auth/readonly-api-key', '', alice.requireCreds(), Math.floor(Date.now() / 1000) + signedAhead);
  const first = await alice.request('POST', '/auth/readonly-api-key', { headers });
  tt.equal(first.status, 200);
  const again = await alice.request('POST', '/auth/readonly-api-key', { headers });
  tt.same([again.status, again.body], [400, { error: 'request replayed: this signed request was already applied; sign a new request to act again' }]);
  const key = (first.body as { apiKey: string }).apiKey;
  tt.same(await A.getReadonlyApiKeys(), [key]);
  tt.equal(await A.deleteReadonlyApiKey(key), true);
});

t.test(`at most ${MAX_ACCESS_KEYS} live read-only keys per address`, async (tt) => {
  const keys: string[] = [];
  for (let i = 0; i < MAX_ACCESS_KEYS; i++) keys.push((await createKey<{ apiKey: string }>(alice, '/auth/readonly-api-key')).apiKey);
  signedAhead += 1;
  const headers = alice.l2Headers('POST', '/auth/readonly-api-key', '', alice.requireCreds(), Math.floor(Date.now() / 1000) + signedAhead);
  const refused = await alice.request('POST', '/auth/readonly-api-key', { headers });
  tt.same([refused.status, refused.body], [400, { error: `Could not create api key: at most ${MAX_ACCESS_KEYS} readonly API keys per address; delete one first` }]);
  tt.same(await A.getReadonlyApiKeys(), keys, 'oldest first');
  for (const key of keys) await A.deleteReadonlyApiKey(key);
  tt.same(await A.getReadonlyApiKeys(), []);
});

const CAROL_CODE = `0x${'0'.repeat(24)}${carol.account.slice(2)}`;
let builderKey: BuilderApiKeyCreds & { builderCode: string };

function builderConfig(creds: BuilderApiKeyCreds): BuilderConfig {
  return new BuilderConfig({ localBuilderCreds: { key: creds.key, secret: creds.secret, passphrase: creds.passphrase } });
}

/** POST /order as `trader` (L2) with the builder-signing-sdk headers of `builder`, over the exact body. */
async function postThroughBuilder(trader: Trader, builder: BuilderConfig, terms: Parameters<Trader['signOrder']>[0], orderType = 'GTC'): Promise<Answer> {
  const body = JSON.stringify({ order: await trader.signOrder(terms), owner: trader.requireCreds().apiKey, orderType });
  const builderHeaders = await builder.generateBuilderHeaders('POST', '/order', body);
  if (builderHeaders === undefined) throw new Error('the builder SDK made no headers');
  return trader.request('POST', '/order', { headers: { ...trader.l2Headers('POST', '/order', body), ...builderHeaders }, body });
}

t.test('the official client creates and lists builder keys, with the builder code', async (tt) => {
  const created = (await C.createBuilderApiKey()) as typeof builderKey;
  tt.same(Object.keys(created).sort(), ['builderCode', 'key', 'passphrase', 'secret']);
  tt.match(created.key, UUID_V4);
  tt.equal(created.builderCode, CAROL_CODE, "the owner's address left-padded to bytes32");
  builderKey = created;
  const listed = await C.getBuilderApiKeys();
  tt.equal(listed.length, 1);
  tt.match(listed[0], { key: created.key, revokedAt: null, builderCode: CAROL_CODE });
  tt.ok(Math.abs(Date.parse(listed[0]?.createdAt ?? '') - Date.now()) < 60_000, 'createdAt is an ISO time of now');
  tt.equal(JSON.stringify(listed).includes(created.secret), false, 'no secret in the listing');
});

t.test('an order sent with builder-signing-sdk headers is attributed to the builder and shows in /builder/trades after its fill', async (tt) => {
  const placed = await postThroughBuilder(bob, builderConfig(builderKey), { tokenId: T0, side: 'BUY', makerAmount: units(2.5), takerAmount: units(5) });
  tt.equal(placed.status, 200, placed.text);
  tt.match(placed.body, { success: true, status: 'matched' });
  const page = await C.getBuilderTrades({ builder_code: CAROL_CODE });
  tt.equal(page.trades.length, 1, JSON.stringify(page));
  tt.match(page.trades[0], { builder: CAROL_CODE, builderCode: CAROL_CODE, market: CID, assetId: T0, side: 'BUY', size: '5', price: '0.5' });
  tt.equal(page.trades[0]?.takerOrderHash, (placed.body as { orderID: string }).orderID);
  const B = client(bob);
  const { apiKey } = await B.createReadonlyApiKey();
  const owner = await bob.l2('GET', '/data/trades');
  const got = await readonly('/data/trades', apiKey, bob.address);
  tt.equal((got.body as { data: unknown[] }).data.length, 1, "the buyer's fill, read with his read-only key");
  tt.same(got.body, owner.body, 'as his L2 read answers it');
  tt.equal(await B.deleteReadonlyApiKey(apiKey), true);
});

t.test('a signed non-zero builder code is kept as signed, whatever builder headers come with it', async (tt) => {
  const signedCode = hash32('another builder');
  const placed = await postThroughBuilder(bob, builderConfig(builderKey), { tokenId: T0, side: 'BUY', makerAmount: units(2.5), takerAmount: units(5), builder: signedCode });
  tt.match(placed.body, { success: true, status: 'matched' });
  tt.equal((await C.getBuilderTrades({ builder_code: signedCode })).trades.length, 1);
  tt.equal((await C.getBuilderTrades({ builder_code: CAROL_CODE })).trades.length, 1, "nothing more under Carol's code");
});

t.test('builder headers that do not verify are a 401 before the order is looked at', async (tt) => {
  tt.teardown(await holdTimedCommands(host));
  const before = engine.stateHash();
  const wrongPassphrase = builderConfig({ ...builderKey, passphrase: 'f'.repeat(64) });
  const refused = await postThroughBuilder(bob, wrongPassphrase, { tokenId: T0, side: 'BUY', makerAmount: units(2.5), takerAmount: units(5) });
  tt.same([refused.status, refused.body], [401, { error: 'Unauthorized/Invalid builder api key: wrong passphrase for this builder API key' }]);
  const wrongSecret = builderConfig({ ...builderKey, secret: Buffer.alloc(32, 7).toString('base64') });
  const bad = await postThroughBuilder(bob, wrongSecret, { tokenId: T0, side: 'BUY', makerAmount: units(2.5), takerAmount: units(5) });
  tt.equal(bad.status, 401);
  tt.match((bad.body as { error: string }).error, /^Unauthorized\/Invalid builder api key: POLY_BUILDER_SIGNATURE does not match/);
  await host.idle();
  tt.equal(engine.stateHash(), before);
});

t.test('revoking builder keys: the key of the builder headers, or every key of the caller with L2 only', async (tt) => {
  const second = await createKey<typeof builderKey>(carol, '/auth/builder-api-key');
  tt.same((await C.getBuilderApiKeys()).map((k) => k.key), [builderKey.key, second.key]);
  const revokeWith = async (trader: Trader, creds: BuilderApiKeyCreds): Promise<Answer> => {
    const headers = await builderConfig(creds).generateBuilderHeaders('DELETE', '/auth/builder-api-key');
    return trader.request('DELETE', '/auth/builder-api-key', { headers: { ...trader.l2Headers('DELETE', '/auth/builder-api-key'), ...headers } });
  };
  const foreign = await revokeWith(bob, second);
  tt.equal(foreign.status, 401, "another address's builder key is not the caller's to revoke");
  const one = await revokeWith(carol, second);
  tt.same([one.status, one.text], [200, 'OK']);
  tt.same((await C.getBuilderApiKeys()).map((k) => k.key), [builderKey.key], 'only the key of the builder headers');
  const third = await createKey<typeof builderKey>(carol, '/auth/builder-api-key');
  await C.revokeBuilderApiKey();
  tt.same(await C.getBuilderApiKeys(), [], 'the V2 client (L2 only) revokes every builder key of the caller');
  await C.revokeBuilderApiKey();
  tt.same(await C.getBuilderApiKeys(), [], 'and again, with none left, is fine');
  for (const gone of [builderKey, third]) {
    const refused = await postThroughBuilder(bob, builderConfig(gone), { tokenId: T0, side: 'BUY', makerAmount: units(2.5), takerAmount: units(5) });
    tt.same([refused.status, refused.body], [401, { error: 'Unauthorized/Invalid builder api key: unknown or revoked builder API key' }]);
  }
});

t.test('the engine holds no secret and every invariant', async (tt) => {
  await host.idle();
  tt.same(engine.checkInvariants(), []);
  tt.equal(engine.state.accessKeys.size, 0, 'every key created here was deleted or revoked');
});
