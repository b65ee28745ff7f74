// Notifications, market trade events and pre-migration orders through the official V2 client
// (@polymarket/clob-client-v2, unchanged) against the running service at `${baseUrl}/clob`: a maker's and a
// taker's fills, a user cancel, a heartbeat cancel and a resolution cancel, and the resolution of a market
// both hold show in getNotifications() with their payloads; dropNotifications() removes what it names, for
// good: the drop survives a restart from the notifications' snapshot and one that rebuilds them from the
// whole log. getMarketTradesEvents() gives the trades just made, newest first; getPreMigrationOrders() [].

import { ClobClient, OrderType, Side, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import t from 'tap';
import { units } from '../engine/scenario.js';
import { clientSigner } from '../auth/fixtures.js';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';

interface Note {
  id: number;
  type: number;
  owner: string;
  timestamp: number;
  payload: Record<string, unknown>;
}

function conditionId(label: string): string {
  return '0x' + createHash('sha256').update(label).digest('hex');
}
function tokenId(label: string): string {
  return BigInt('0x' + createHash('sha256').update(label).digest('hex')).toString();
}

const CID = conditionId('notifications-market');
const [YES, NO] = [tokenId('notifications-yes'), tokenId('notifications-no')];
const alice = Wallet.createRandom() as unknown as Wallet;
const bob = Wallet.createRandom() as unknown as Wallet;
const ALICE = alice.address.toLowerCase();
const BOB = bob.address.toLowerCase();

let svc: TestService = await startTestService();
t.teardown(() => svc.close());

async function must(command: Parameters<TestService['service']['engine']['submit']>[0]): Promise<void> {
  const events = await svc.service.engine.submit(command);
  const refused = events.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
}

await must({ type: 'ListMarket', conditionId: CID, tokenIds: [YES, NO], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
await must({ type: 'Deposit', account: ALICE, amount: units(100) });
await must({ type: 'Split', account: ALICE, conditionId: CID, amount: units(50) });
await must({ type: 'Deposit', account: BOB, amount: units(50) });

function client(wallet: Wallet, creds?: ApiKeyCreds): ClobClient {
  return new ClobClient({ host: `${svc.baseUrl}/clob`, chain: 137, signer: clientSigner(wallet) as never, ...(creds === undefined ? {} : { creds }), throwOnError: true });
}
const aliceCreds = await new ClobClient({ host: `${svc.baseUrl}/clob`, chain: 137, signer: clientSigner(alice) as never }).createOrDeriveApiKey();
const bobCreds = await new ClobClient({ host: `${svc.baseUrl}/clob`, chain: 137, signer: clientSigner(bob) as never }).createOrDeriveApiKey();
const notesOf = async (c: ClobClient): Promise<Note[]> => (await c.getNotifications()) as unknown as Note[];

// The session: Alice asks, Bob takes, Alice cancels the rest; again at 0.7; Bob's first bid goes with his
// heartbeat session, his second with the resolution (YES wins) of the market both hold.
const A = client(alice, aliceCreds);
const B = client(bob, bobCreds);
const ask1 = (await A.createAndPostOrder({ tokenID: YES, price: 0.6, size: 10, side: Side.SELL }, undefined, OrderType.GTC)).orderID;
const fill1 = await B.createAndPostMarketOrder({ tokenID: YES, amount: 3, side: Side.BUY, orderType: OrderType.FOK }, undefined, OrderType.FOK);
await A.cancelOrder({ orderID: ask1 });
const ask2 = (await A.createAndPostOrder({ tokenID: YES, price: 0.7, size: 5, side: Side.SELL }, undefined, OrderType.GTC)).orderID;
const fill2 = await B.createAndPostMarketOrder({ tokenID: YES, amount: 3.5, side: Side.BUY, orderType: OrderType.FOK }, undefined, OrderType.FOK);
const bid1 = (await B.createAndPostOrder({ tokenID: NO, price: 0.2, size: 5, side: Side.BUY }, undefined, OrderType.GTC)).orderID;
await must({ type: 'Heartbeat', account: BOB, previousId: '', heartbeatId: 'hb-notifications', timeoutMs: 1_000 });
await new Promise((resolve) => setTimeout(resolve, 1_100));
await must({ type: 'AdvanceTime' });
const bid2 = (await B.createAndPostOrder({ tokenID: NO, price: 0.3, size: 5, side: Side.BUY }, undefined, OrderType.GTC)).orderID;

t.test('getMarketTradesEvents: the trades just made, newest first, from the taker\'s side', async (t) => {
  const events = await B.getMarketTradesEvents(CID);
  t.equal(events.length, 2);
  t.match(events[0], {
    event_type: 'trade', market: { condition_id: CID, asset_id: YES, question: '', icon: '', slug: '' },
    user: { address: BOB, username: '', profile_picture: '', optimized_profile_picture: '', pseudonym: '' },
    side: 'BUY', size: '5', fee_rate_bps: '0', price: '0.7', outcome: 'Yes', outcome_index: 0, transaction_hash: fill2.transactionsHashes?.[0],
  });
  t.match(events[1], { price: '0.6', size: '5', transaction_hash: fill1.transactionsHashes?.[0] });
  t.ok(Math.abs(Number(events[0]?.timestamp) - Date.now() / 1000) < 60, 'timestamp: Unix seconds');
  t.same(await (await fetch(`${svc.baseUrl}/markets/live-activity/${CID}`)).json(), events, 'the same at the root');

  const raw = new Trader(svc.baseUrl, alice);
  t.match(await raw.request('GET', '/markets/live-activity/0x1234'), { status: 400, body: { error: 'Invalid market' } });
  t.match(await raw.request('GET', `/markets/live-activity/${conditionId('never listed')}`), { status: 404, body: { error: 'market not found' } });
  const other = conditionId('notifications-quiet');
  await must({ type: 'ListMarket', conditionId: other, tokenIds: [tokenId('quiet-yes'), tokenId('quiet-no')], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  t.same(await B.getMarketTradesEvents(other), [], 'a listed market without trades');
});

t.test('getPreMigrationOrders: none, in upstream\'s envelope', async (t) => {
  t.same(await A.getPreMigrationOrders(), []);
  const raw = new Trader(svc.baseUrl, alice);
  raw.creds = { apiKey: aliceCreds.key, secret: aliceCreds.secret, passphrase: aliceCreds.passphrase };
  t.same((await raw.l2('GET', '/data/pre-migration-orders', undefined, '?next_cursor=MA==')).body, { data: [], next_cursor: 'LTE=', limit: 100, count: 0 });
  t.equal((await raw.request('GET', '/data/pre-migration-orders')).status, 401, 'L2 authentication');
});

let resolved = false;

t.test('getNotifications: fills, cancellations (user, heartbeat, resolution) and the resolution of a held market', async (t) => {
  await must({ type: 'ResolveMarket', conditionId: CID, winningOutcome: 0 });
  resolved = true;
  const aliceNotes = await notesOf(A);
  t.same(aliceNotes.map((n) => n.type), [4, 2, 1, 2], 'Alice: resolution, fill, cancel, fill (newest first)');
  const [res, f2, c1, f1] = aliceNotes as [Note, Note, Note, Note];
  t.match(res, { owner: ALICE, payload: { market: CID, winning_asset_id: YES, winning_outcome: 'Yes', winning_outcome_index: 0, positions: [{ asset_id: YES, outcome: 'Yes', size: '40' }, { asset_id: NO, outcome: 'No', size: '50' }] } });
  t.match(f2, { owner: aliceCreds.key, payload: { order_id: ask2, trade_id: fill2.tradeIDs?.[0], market: CID, asset_id: YES, side: 'SELL', price: '0.7', size: '5', trader_side: 'MAKER', size_remaining: '0', transaction_hash: fill2.transactionsHashes?.[0], outcome: 'Yes' } });
  t.match(c1, { type: 1, owner: aliceCreds.key, payload: { order_id: ask1, reason: 'user', side: 'SELL', price: '0.6', original_size: '10', size_matched: '5', size_cancelled: '5', outcome: 'Yes' } });
  t.match(f1, { owner: aliceCreds.key, payload: { order_id: ask1, trade_id: fill1.tradeIDs?.[0], price: '0.6', size: '5', trader_side: 'MAKER', size_remaining: '5' } });
  t.ok(aliceNotes.every((n) => Number.isSafeInteger(n.id) && Math.abs(n.timestamp - Date.now() / 1000) < 60), 'numeric ids; timestamps in Unix seconds');
  t.equal(new Set(aliceNotes.map((n) => n.id)).size, 4, 'distinct ids');

  const bobNotes = await notesOf(B);
  t.same(bobNotes.map((n) => n.type), [4, 1, 1, 2, 2], 'Bob: resolution, the resolution\'s cancel, the heartbeat\'s cancel, two fills');
  t.match(bobNotes[0], { owner: BOB, payload: { positions: [{ asset_id: YES, size: '10' }] } });
  t.equal((bobNotes[0]?.payload.positions as unknown[]).length, 1, 'Bob held YES only');
  t.match(bobNotes[1], { owner: bobCreds.key, payload: { order_id: bid2, reason: 'market_resolved', side: 'BUY', asset_id: NO, outcome: 'No', size_cancelled: '5' } });
  t.match(bobNotes[2], { owner: bobCreds.key, payload: { order_id: bid1, reason: 'heartbeat', price: '0.2' } });
  t.match(bobNotes[3], { payload: { order_id: fill2.orderID, trader_side: 'TAKER', side: 'BUY', price: '0.7' } });
  t.match(bobNotes[4], { payload: { order_id: fill1.orderID, trader_side: 'TAKER', price: '0.6' } });

  const raw = new Trader(svc.baseUrl, bob);
  raw.creds = { apiKey: bobCreds.key, secret: bobCreds.secret, passphrase: bobCreds.passphrase };
  t.match(await raw.l2('GET', '/notifications', undefined, '?signature_type=7'), { status: 400, body: { error: 'signature_type: must be 0, 1, 2 or 3' } });
  t.equal((await raw.request('GET', '/notifications')).status, 401, 'L2 authentication');
});

t.test('dropNotifications removes what it names, for good: across a restart from the snapshot and a rebuild from the log', async (t) => {
  t.ok(resolved, 'after the session');
  const before = await notesOf(B);
  const dropped = [before[1]?.id, before[3]?.id].map(String);
  t.equal(await B.dropNotifications({ ids: dropped }), 'OK');
  const kept = before.filter((n) => !dropped.includes(String(n.id)));
  t.same(await notesOf(B), kept, 'gone at once; the others unchanged');
  t.same((await notesOf(A)).length, 4, "Alice's are untouched");
  t.equal(await A.dropNotifications({ ids: dropped }), 'OK', "ids of another account's notifications drop nothing");
  t.same(await notesOf(B), kept);

  const raw = new Trader(svc.baseUrl, bob);
  raw.creds = { apiKey: bobCreds.key, secret: bobCreds.secret, passphrase: bobCreds.passphrase };
  t.match(await raw.l2('DELETE', '/notifications'), { status: 400, body: { error: /^ids: / } }, 'ids are required');
  t.match(await raw.l2('DELETE', '/notifications', undefined, '?ids=1,x'), { status: 400, body: { error: 'ids: "x" is not a notification id (a non-negative integer)' } });
  t.match(await raw.l2('DELETE', '/notifications', undefined, `?ids=${Array.from({ length: 1_001 }, (_, i) => i).join(',')}`), { status: 400, body: { error: 'ids: at most 1000 ids at a time' } });

  const aliceNotes = await notesOf(A);
  const { dataDir, clickhouseDatabase } = svc.service.config;
  await svc.close();
  t.match(readdirSync(join(dataDir, 'notifications')), [/^notifications-\d{20}\.v8$/], 'a snapshot written at shutdown');
  svc = await startTestService({ dataDir, clickhouseDatabase });
  t.ok(svc.service.notifications.position > 0, 'restored');
  t.same(await notesOf(client(bob, bobCreds)), kept, 'after a restart from the snapshot written at shutdown');
  t.same(await notesOf(client(alice, aliceCreds)), aliceNotes);

  await svc.close();
  rmSync(join(dataDir, 'notifications'), { recursive: true, force: true });
  svc = await startTestService({ dataDir, clickhouseDatabase });
  t.same(await notesOf(client(bob, bobCreds)), kept, 'after a restart that rebuilds them from the whole log');
  t.same(await notesOf(client(alice, aliceCreds)), aliceNotes);
});
