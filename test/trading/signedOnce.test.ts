// The at-most-once rule of signed requests, over HTTP against the whole service with its two clocks injected:
// the API's (admission: freshness windows) and the engine host's (the time each command is applied at).
//
// Regression "a signed order re-posted as its freshness window closes is accepted again": the API called the
// re-post fresh by its clock while the engine, by its later clock, had already forgotten the order's id.
// Then every L2-signed request that moves funds or cancels by scope, sent again unchanged inside its
// freshness window: applied once, the copies refused, nothing changed by them.

import t, { type Test } from 'tap';
import { Wallet } from 'ethers';
import { pino } from 'pino';
import type { Market } from '../../engine/market.js';
import { startService } from '../../server/service.js';
import { units } from '../engine/scenario.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { Trader, type Answer } from '../support/tradingClient.js';

const WINDOW_SEC = 60;
const AUTH_SEC = 30;
const T_START = Date.UTC(2026, 10, 24, 12, 0, 0);
const clocks = { api: T_START, engine: T_START };
const { ch, db } = await freshDatabase();
const service = await startService(
  testConfig({ clickhouseDatabase: db, orderTimestampWindowSec: WINDOW_SEC, authFreshnessSec: AUTH_SEC }),
  pino({ level: 'silent' }),
  { clickhouse: ch, clock: () => clocks.api, engineClock: () => clocks.engine },
);
t.teardown(() => service.close());
const baseUrl = `http://127.0.0.1:${service.port}`;
const host = service.engine;
const engine = host.engine;

const M = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
if (M === undefined) throw new Error('the demo catalog needs an active market with tick 0.01');
const [YES] = M.tokenIds;

function setClocks(api: number, engineAt = api): void {
  clocks.api = api;
  clocks.engine = engineAt;
}

async function trader(collateral = 1000, split = 0): Promise<Trader> {
  const tr = new Trader(baseUrl, Wallet.createRandom() as unknown as Wallet, { clock: () => clocks.api });
  await tr.signIn();
  await host.submit({ type: 'Deposit', account: tr.account, amount: units(collateral) });
  if (split > 0) await host.submit({ type: 'Split', account: tr.account, conditionId: M.conditionId, amount: units(split) });
  return tr;
}

function bid(price: number, size: number, timestamp?: number): { side: 'BUY'; makerAmount: number; takerAmount: number; tokenId: string; timestamp?: number } {
  return { side: 'BUY', makerAmount: Math.round(price * size * 1_000_000), takerAmount: units(size), tokenId: YES as string, ...(timestamp === undefined ? {} : { timestamp }) };
}

/**
 * The engine's state hash but for its event sequence and time: a refusal the engine decides is logged as an
 * event (so `seq` moves) and changes nothing else while the clocks stand still.
 */
function stateApartFromSeq(): string {
  const state = engine.state;
  const { seq, now } = state;
  state.seq = 0;
  state.now = 0;
  try {
    return engine.stateHash();
  } finally {
    state.seq = seq;
    state.now = now;
  }
}

/** Sends `send` and expects a refusal with `status` and `text`, and no change to the engine but its sequence. */
async function refusedUnchanged(tt: Test, what: string, status: number, text: string | RegExp, send: () => Promise<Answer>): Promise<void> {
  await host.idle();
  const before = stateApartFromSeq();
  const res = await send();
  tt.equal(res.status, status, `${what}: status (${res.text})`);
  tt.match((res.body as { error?: string }).error ?? '', text, `${what}: message`);
  await host.idle();
  tt.equal(stateApartFromSeq(), before, `${what}: state unchanged`);
}

t.test('a signed order re-posted as its freshness window closes is refused (API clock inside, engine clock past)', async (tt) => {
  setClocks(T_START + 1_000_000);
  const tr = await trader();
  const signedAt = clocks.api - (WINDOW_SEC - 1) * 1000; // 59 s old: fresh for the API
  const order = await tr.signOrder(bid(0.2, 10, signedAt));
  const placed = await tr.postOrder(order);
  tt.equal(placed.status, 200, placed.text);
  const id = (placed.body as { orderID: string }).orderID;
  tt.equal((await tr.l2('DELETE', '/order', { orderID: id })).status, 200);

  // The API's clock is 1 ms inside the window; the engine applies the re-post 1 ms past it, where the id is
  // no longer remembered as a duplicate. Before the fix, this was accepted as a new order.
  setClocks(signedAt + WINDOW_SEC * 1000 - 1, signedAt + WINDOW_SEC * 1000);
  await host.submit({ type: 'AdvanceTime' }); // the engine forgets the id now, before the state is compared
  tt.notOk(engine.state.ids.known(id), 'the engine no longer remembers the id');
  await refusedUnchanged(tt, 'the re-post at the boundary', 400, `order ${id} is invalid. Timestamp is past the order window at the matching engine`, () => tr.postOrder(order));
  tt.notOk(engine.order(id), 'not on the book');

  // Later still, both clocks past: the API's own early refusal, with the order's id.
  setClocks(signedAt + WINDOW_SEC * 1000 + 5_000);
  await refusedUnchanged(tt, 'the re-post after the window', 400, `order ${id} is invalid. Timestamp`, () => tr.postOrder(order));
});

t.test('an order forgotten under one window stays refused when the window is raised (the staleness horizon)', async (tt) => {
  setClocks(T_START + 2_000_000);
  const tr = await trader();
  const order = await tr.signOrder(bid(0.21, 10, clocks.api - 30_000));
  const placed = await tr.postOrder(order);
  tt.equal(placed.status, 200, placed.text);
  const id = (placed.body as { orderID: string }).orderID;
  tt.equal((await tr.l2('DELETE', '/order', { orderID: id })).status, 200);
  setClocks(clocks.api + 40_000); // the id is forgotten at the next command: signed 70 s ago, window 60 s
  await host.submit({ type: 'AdvanceTime' });
  tt.notOk(engine.state.ids.known(id), 'the engine has forgotten the id');
  // The same signed order as an API with a 120 s window would submit it: fresh by that window.
  const submission = { type: 'PlaceOrder', orderId: id, account: tr.account, owner: tr.requireCreds().apiKey, tokenId: YES as string, side: 'BUY', makerAmount: 2_100_000, takerAmount: units(10), orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: Number(order.timestamp) + 120_000, signedAt: Number(order.timestamp) } as const;
  const events = await host.submit(submission);
  tt.same(events.map((e) => [e.type, 'code' in e ? e.code : '']), [['OrderRejected', 'ORDER_STALE']], 'refused as stale');
});

t.test('L2 requests replayed unchanged inside their freshness window act once', async (tt) => {
  setClocks(T_START + 3_000_000);
  const tr = await trader(1000, 0);
  const balance = (): number => engine.balances(tr.account)?.free ?? 0;
  const tokens = (): number => engine.balances(tr.account)?.tokens.get(YES as string)?.free ?? 0;

  /** Sends the same signed request `times` times; returns the answers. */
  const sendSame = async (method: 'POST' | 'DELETE', path: string, body: unknown, times: number): Promise<Answer[]> => {
    const text = JSON.stringify(body);
    const headers = tr.l2Headers(method, path, text);
    const out: Answer[] = [];
    for (let i = 0; i < times; i++) out.push(await tr.request(method, path, { headers, body: text }));
    return out;
  };

  const split = await sendSame('POST', '/split', { market: M.conditionId, amount: String(units(10)) }, 3);
  tt.same(split.map((a) => a.status), [200, 400, 400], 'POST /split: once');
  tt.match((split[1]?.body as { error: string }).error, /^request replayed: this signed request was already applied/);
  tt.equal(tokens(), units(10), 'split once');
  tt.equal(balance(), units(990));

  // Two identical splits in one second need distinct bodies: any extra field makes a new signature.
  const again = await tr.l2('POST', '/split', { market: M.conditionId, amount: String(units(10)), nonce: 2 });
  tt.equal(again.status, 200, 'the same split with a nonce field is a new request');
  tt.equal(tokens(), units(20));

  const merged = await sendSame('POST', '/merge', { market: M.conditionId, amount: String(units(5)) }, 3);
  tt.same(merged.map((a) => a.status), [200, 400, 400], 'POST /merge: once');
  tt.equal(tokens(), units(15), 'merged once');

  // Cancel-all is not refused as a replay (by decision: the official client's cancelAll() has no body, so two
  // calls in one second are byte-identical); a copy cancels what is open then and moves no funds.
  const first = await tr.postOrder(await tr.signOrder(bid(0.1, 10)));
  tt.equal(first.status, 200, first.text);
  const cancelAllHeaders = tr.l2Headers('DELETE', '/cancel-all', '');
  const c1 = await tr.request('DELETE', '/cancel-all', { headers: cancelAllHeaders });
  tt.same([c1.status, (c1.body as { canceled: string[] }).canceled.length], [200, 1]);
  const later = await tr.postOrder(await tr.signOrder(bid(0.11, 10)));
  const laterId = (later.body as { orderID: string }).orderID;
  const total = (): number => (engine.balances(tr.account)?.free ?? 0) + (engine.balances(tr.account)?.reserved ?? 0);
  const fundsBefore = total();
  const c2 = await tr.request('DELETE', '/cancel-all', { headers: cancelAllHeaders });
  tt.same(c2.body, { canceled: [laterId], not_canceled: {} }, 'DELETE /cancel-all sent again cancels what is open then');
  tt.equal(total(), fundsBefore, 'and moves no funds');

  const scoped = JSON.stringify({ market: M.conditionId });
  const scopedHeaders = tr.l2Headers('DELETE', '/cancel-market-orders', scoped);
  const m1 = await tr.request('DELETE', '/cancel-market-orders', { headers: scopedHeaders, body: scoped });
  tt.same(m1.body, { canceled: [], not_canceled: {} }, 'DELETE /cancel-market-orders with nothing open');
  const fourth = await tr.postOrder(await tr.signOrder(bid(0.13, 10)));
  const fourthId = (fourth.body as { orderID: string }).orderID;
  const fundsBeforeScoped = total();
  const m2 = await tr.request('DELETE', '/cancel-market-orders', { headers: scopedHeaders, body: scoped });
  tt.same(m2.body, { canceled: [fourthId], not_canceled: {} }, 'DELETE /cancel-market-orders sent again cancels what is open then');
  tt.equal(total(), fundsBeforeScoped, 'and moves no funds');

  const third = await tr.postOrder(await tr.signOrder(bid(0.12, 10)));
  const thirdId = (third.body as { orderID: string }).orderID;
  // Cancelling an order id is idempotent: a replay finds it already cancelled and changes nothing.
  const one = { orderID: thirdId };
  const oneText = JSON.stringify(one);
  const oneHeaders = tr.l2Headers('DELETE', '/order', oneText);
  const d1 = await tr.request('DELETE', '/order', { headers: oneHeaders, body: oneText });
  tt.same((d1.body as { canceled: string[] }).canceled, [thirdId]);
  await host.idle();
  const before = stateApartFromSeq();
  const d2 = await tr.request('DELETE', '/order', { headers: oneHeaders, body: oneText });
  tt.same(d2.body, { canceled: [], not_canceled: { [thirdId]: 'Order already canceled' } }, 'DELETE /order replayed: already cancelled');
  await host.idle();
  tt.equal(stateApartFromSeq(), before, 'DELETE /order replayed: state unchanged');

  // The same request in another encoding of its HMAC (hex instead of base64url) is the same request.
  const hexHeaders = tr.l2Headers('POST', '/split', JSON.stringify({ market: M.conditionId, amount: '1000000' }));
  const sigName = Object.keys(hexHeaders).find((k) => k.endsWith('SIGNATURE')) as string;
  const s = await tr.request('POST', '/split', { headers: hexHeaders, body: JSON.stringify({ market: M.conditionId, amount: '1000000' }) });
  tt.equal(s.status, 200);
  const hex = Buffer.from(hexHeaders[sigName] as string, 'base64url').toString('hex');
  await refusedUnchanged(tt, 'POST /split replayed with its signature in hex', 400, /^request replayed/, () =>
    tr.request('POST', '/split', { headers: { ...hexHeaders, [sigName]: hex }, body: JSON.stringify({ market: M.conditionId, amount: '1000000' }) }),
  );
});

t.test('a refused redeem may be resent and applies once; API key deletion replayed no longer authenticates', async (tt) => {
  setClocks(T_START + 4_000_000);
  const tr = await trader(100, 10);
  const m2 = M.conditionId;
  const body = JSON.stringify({ market: m2 });
  const headers = tr.l2Headers('POST', '/redeem', body);
  const early = await tr.request('POST', '/redeem', { headers, body });
  tt.same([early.status, early.body], [400, { error: `market ${m2} is not resolved` }], 'refused by the engine: nothing applied');
  await host.submit({ type: 'ResolveMarket', conditionId: m2, winningOutcome: 0 });
  // A request the engine refused changed nothing, so the same signed request may come again and apply.
  const r1 = await tr.request('POST', '/redeem', { headers, body });
  tt.equal(r1.status, 200, r1.text);
  tt.equal((r1.body as { payout: string }).payout, String(units(10)));
  await refusedUnchanged(tt, 'POST /redeem replayed', 400, /^request replayed/, () => tr.request('POST', '/redeem', { headers, body }));

  const delHeaders = tr.l2Headers('DELETE', '/auth/api-key', '');
  tt.equal((await tr.request('DELETE', '/auth/api-key', { headers: delHeaders })).status, 200);
  await refusedUnchanged(tt, 'DELETE /auth/api-key replayed', 401, /unknown or deleted API key/, () => tr.request('DELETE', '/auth/api-key', { headers: delHeaders }));
});

t.test('an L2 request the API calls fresh but the engine applies past its window is refused as stale', async (tt) => {
  // Runs last: the market of the tests above is resolved, so this one splits in another market.
  const other = [...engine.markets()].find((m) => m.status === 'active' && m.conditionId !== M.conditionId) as Market;
  setClocks(T_START + 5_000_000);
  const tr = await trader(100);
  const signedSec = Math.floor(clocks.api / 1000);
  const body = JSON.stringify({ market: other.conditionId, amount: String(units(1)) });
  const headers = tr.l2Headers('POST', '/split', body, tr.requireCreds(), signedSec);
  setClocks((signedSec + AUTH_SEC) * 1000 + 999, (signedSec + AUTH_SEC + 1) * 1000);
  await refusedUnchanged(tt, 'POST /split at the boundary', 400, /^request expired: its signed timestamp is past the freshness window/, () => tr.request('POST', '/split', { headers, body }));
});
