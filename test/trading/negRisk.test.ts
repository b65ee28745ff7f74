// Neg-risk events end to end over HTTP: the operator creates an event and adds its questions; the official
// V2 client (unchanged) places the orders of two wallets, signing them in the neg-risk exchange's domain as
// it does for any neg-risk market; one wallet converts its NO positions (POST /convert, at most once per
// signed request) and its user channel tells it; the operator resolves one question YES, a second YES is
// refused, the event resolves by its winner; both wallets redeem what they hold. The engine's invariants
// hold throughout, and the CLOB and Data API shapes carry the event's fields.

import { ClobClient, OrderType, Side, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { units } from '../engine/scenario.js';
import { clientSigner } from '../auth/fixtures.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { WsClient } from '../support/wsClient.js';

const TOKEN = 'operator-token-for-the-neg-risk-tests';
const svc = await startTestService({ operatorToken: TOKEN });
t.teardown(() => svc.close());
const engine = svc.service.engine.engine;
const CLOB = `${svc.baseUrl}/clob`;

const sha = (label: string): string => createHash('sha256').update(label).digest('hex');
const EVENT = `0x${sha('e2e-neg-risk-event').slice(0, 62)}00`;
const Q = [0, 1, 2].map((i) => ({ conditionId: `0x${sha(`e2e-q${i}`)}`, yes: BigInt(`0x${sha(`e2e-q${i}-yes`)}`).toString(), no: BigInt(`0x${sha(`e2e-q${i}-no`)}`).toString() }));
const q = (i: number): (typeof Q)[number] => Q[i] as (typeof Q)[number];

async function operator(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(svc.baseUrl + path, {
    method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function sound(tt: Test, when: string): void {
  tt.same(engine.checkInvariants(), [], `invariants hold ${when}`);
}

const alice = new Trader(svc.baseUrl);
const bob = new Trader(svc.baseUrl);
let A: ClobClient;
let B: ClobClient;

t.test('the operator creates the event question by question', async (tt) => {
  for (const i of [0, 1, 2]) {
    const listed = await operator('POST', `/operator/neg-risk-events/${EVENT}/markets`, { conditionId: q(i).conditionId, tokenIds: [q(i).yes, q(i).no], questionIndex: i });
    tt.equal(listed.status, 200, `question ${i}`);
    tt.match(listed.body, { conditionId: q(i).conditionId, negRisk: true, negRiskMarketId: EVENT, questionIndex: i });
  }
  const taken = await operator('POST', `/operator/neg-risk-events/${EVENT}/markets`, { conditionId: `0x${sha('e2e-other')}`, tokenIds: ['7', '8'], questionIndex: 1 });
  tt.same([taken.status, taken.body.error], [400, `question 1 of neg risk market ${EVENT} is already market ${q(1).conditionId}`]);
  const view = await operator('GET', `/operator/neg-risk-events/${EVENT}`);
  tt.match(view.body, { negRiskMarketId: EVENT, questions: Q.map((x, i) => ({ questionIndex: i, conditionId: x.conditionId })), winner: null, paidAhead: '0' });
  tt.equal((await operator('GET', `/operator/neg-risk-events/0x${'ab'.repeat(32)}`)).status, 404);
  const refused: [string, string, unknown, number, RegExp][] = [
    ['POST', '/operator/markets', { conditionId: `0x${sha('e2e-x')}`, tokenIds: ['71', '72'], negRiskMarketId: EVENT }, 400, /give both negRiskMarketId and questionIndex/],
    ['POST', '/operator/neg-risk-events/0x12/markets', { conditionId: `0x${sha('e2e-x')}`, tokenIds: ['71', '72'], questionIndex: 3 }, 400, /neg_risk_market_id must be 0x \+ 64 hex/],
    ['POST', `/operator/neg-risk-events/${EVENT}/markets`, { conditionId: `0x${sha('e2e-x')}`, tokenIds: ['71', '72'], questionIndex: 256 }, 400, /./],
    ['POST', `/operator/neg-risk-events/${EVENT}/markets`, { conditionId: `0x${sha('e2e-x')}`, tokenIds: ['71', '72'], questionIndex: 3, negRisk: false }, 400, /./],
    ['POST', `/operator/neg-risk-events/${EVENT}/resolve`, { winningConditionId: `0x${sha('e2e-x')}` }, 400, /is not a question of neg risk market/],
  ];
  for (const [method, path, body, status, error] of refused) {
    const answer = await operator(method, path, body);
    tt.same([answer.status, error.test(String(answer.body.error))], [status, true], `${path} ${JSON.stringify(body)}: ${String(answer.body.error)}`);
  }
  tt.equal(engine.negRiskEvent(EVENT)?.questions.length, 3, 'nothing joined or resolved');
  for (const who of [alice, bob]) tt.equal((await operator('POST', '/operator/deposit', { address: who.address, amount: '200' })).status, 200);
});

t.test('the official client trades NO of two questions, in the neg-risk domain', async (tt) => {
  const creds = async (trader: Trader): Promise<ApiKeyCreds> => {
    const c = await trader.signIn();
    return { key: c.apiKey, secret: c.secret, passphrase: c.passphrase };
  };
  A = new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(alice.wallet) as never, creds: await creds(alice), throwOnError: true });
  B = new ClobClient({ host: CLOB, chain: 137, signer: clientSigner(bob.wallet) as never, creds: await creds(bob), throwOnError: true });
  tt.equal(await A.getNegRisk(q(0).no), true, 'GET /neg-risk');
  for (const i of [0, 1]) tt.equal((await alice.l2('POST', '/split', { market: q(i).conditionId, amount: String(units(50)) })).status, 200);
  for (const [i, price] of [[0, 0.7], [1, 0.8]] as const) {
    const ask = await A.createAndPostOrder({ tokenID: q(i).no, price, size: 20, side: Side.SELL }, { tickSize: '0.01', negRisk: true }, OrderType.GTC);
    tt.equal(ask.success, true, `alice asks NO of question ${i}`);
    const bid = await B.createAndPostOrder({ tokenID: q(i).no, price, size: 20, side: Side.BUY }, { tickSize: '0.01', negRisk: true }, OrderType.GTC);
    tt.match(bid, { success: true, status: 'matched' }, `bob buys NO of question ${i}`);
  }
  tt.equal(engine.balances(bob.account)?.tokens.get(q(0).no)?.free, units(20));
  tt.equal(engine.balances(bob.account)?.tokens.get(q(1).no)?.free, units(20));
  sound(tt, 'after trading');
});

t.test('POST /convert: NO of questions 0 and 1 become YES of question 2 and collateral; the user channel tells the owner', async (tt) => {
  const ws = await WsClient.connect(`${svc.baseUrl.replace('http://', 'ws://')}/ws/user`);
  tt.teardown(() => ws.socket.close());
  ws.send({ auth: bob.requireCreds(), type: 'user' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const free = engine.balances(bob.account)?.free ?? 0;
  const body = JSON.stringify({ negRiskMarketId: EVENT, indexSet: '3', amount: String(units(10)) });
  const headers = bob.l2Headers('POST', '/convert', body);
  const answer = await bob.request('POST', '/convert', { headers, body });
  tt.equal(answer.status, 200, answer.text);
  tt.same(answer.body, {
    success: true, negRiskMarketId: EVENT, indexSet: '3', amount: String(units(10)), payout: String(units(10)), balance: String(free + units(10)),
    tokens: { [q(0).yes]: '0', [q(0).no]: String(units(10)), [q(1).yes]: '0', [q(1).no]: String(units(10)), [q(2).yes]: String(units(10)), [q(2).no]: '0' },
  });
  const message = (await ws.next((f) => (f as { event_type?: string }).event_type === 'conversion')) as Record<string, unknown>;
  tt.match(message, {
    type: 'CONVERSION', neg_risk_market_id: EVENT, index_set: '3', amount: '10', payout: '10', maker_address: bob.account,
    converted: [{ market: q(0).conditionId, asset_id: q(0).no }, { market: q(1).conditionId, asset_id: q(1).no }],
    received: [{ market: q(2).conditionId, asset_id: q(2).yes }],
  });
  const again = await bob.request('POST', '/convert', { headers, body });
  tt.same([again.status, (again.body as { error?: string }).error], [400, 'request replayed: this signed request was already applied; sign a new request to act again'], 'a signed request converts once');
  tt.equal(engine.balances(bob.account)?.free, free + units(10));
  sound(tt, 'after the conversion');
});

t.test('conversion refusals: a clear 4xx and nothing changed', async (tt) => {
  const before = JSON.stringify(engine.balances(bob.account), (_k, v: unknown) => (v instanceof Map ? [...v] : v));
  const cases: [unknown, number, RegExp][] = [
    [{ negRiskMarketId: EVENT, indexSet: '0', amount: '1000000' }, 400, /^invalid index set: indexSet is empty/],
    [{ negRiskMarketId: EVENT, indexSet: '8', amount: '1000000' }, 400, /^invalid index set: question 3 is not a market of neg risk market/],
    [{ negRiskMarketId: EVENT, indexSet: 'x', amount: '1000000' }, 400, /^indexSet: must be a non-negative integer/],
    [{ negRiskMarketId: `0x${'cd'.repeat(32)}`, indexSet: '1', amount: '1000000' }, 404, /^neg risk market not found/],
    [{ negRiskMarketId: q(0).conditionId, indexSet: '1', amount: '1000000' }, 404, /^neg risk market not found/],
    [{ negRiskMarketId: EVENT, indexSet: '3', amount: String(units(11)) }, 400, /^not enough balance/],
    [{ negRiskMarketId: EVENT, indexSet: '3', amount: '0' }, 400, /^amount: must be a positive/],
    [{ negRiskMarketId: 'event', indexSet: '3', amount: '1' }, 400, /^negRiskMarketId: must be/],
  ];
  for (const [body, status, error] of cases) {
    const answer = await bob.l2('POST', '/convert', body);
    tt.equal(answer.status, status, JSON.stringify(body));
    tt.match((answer.body as { error?: string }).error, error);
  }
  tt.equal(JSON.stringify(engine.balances(bob.account), (_k, v: unknown) => (v instanceof Map ? [...v] : v)), before, 'balances unchanged');
});

t.test('CLOB and Data API shapes carry the event', async (tt) => {
  const market = (await (await fetch(`${CLOB}/markets/${q(1).conditionId}`)).json()) as Record<string, unknown>;
  tt.match(market, { neg_risk: true, neg_risk_market_id: EVENT, question_id: `${EVENT.slice(0, 64)}01` });
  type Position = { conditionId: string; outcomeIndex: number; size: number; avgPrice: number; negativeRisk: boolean };
  const positions = (await (await fetch(`${svc.baseUrl}/activity/positions?user=${bob.account}&sizeThreshold=0`)).json()) as Position[];
  const at = (i: number, outcome: number): Position | undefined => positions.find((p) => p.conditionId === q(i).conditionId && p.outcomeIndex === outcome);
  // Cost moves from the NO given (7 + 8 USDC for 10 each) to the YES received, less the 10 USDC received.
  tt.match(at(2, 0), { size: 10, avgPrice: 0.5, negativeRisk: true }, 'the YES received is a position');
  tt.match([at(0, 1), at(1, 1)], [{ size: 10, avgPrice: 0.7 }, { size: 10, avgPrice: 0.8 }], 'the NO given left the positions');
  const activity = (await (await fetch(`${svc.baseUrl}/activity/activity?user=${bob.account}&type=CONVERSION`)).json()) as { type: string; conditionId: string; size: number; usdcSize: number }[];
  tt.match(activity, [{ type: 'CONVERSION', conditionId: q(0).conditionId, size: 10, usdcSize: 10 }], 'GET /activity shows the conversion: NO given of each question, USDC received');
  const holders = (await (await fetch(`${svc.baseUrl}/activity/holders?market=${q(2).conditionId}`)).json()) as { holders: { proxyWallet: string; outcomeIndex: number }[] }[];
  tt.ok(holders.some((h) => h.holders.some((x) => x.proxyWallet === bob.account && x.outcomeIndex === 0)), 'bob holds YES of question 2');
});

t.test('one winner: a second YES is refused; the event resolves by its winner; redemption pays accordingly', async (tt) => {
  const yes = await operator('POST', `/operator/markets/${q(2).conditionId}/resolve`, { winningOutcome: 0 });
  tt.match(yes.body, { status: 'resolved', winningOutcome: 0 });
  const second = await operator('POST', `/operator/markets/${q(0).conditionId}/resolve`, { winningOutcome: 0 });
  tt.same([second.status, second.body.error], [400, `neg risk market ${EVENT} already has its winner, market ${q(2).conditionId}: no other question can resolve YES or join it`]);
  const event = await operator('POST', `/operator/neg-risk-events/${EVENT}/resolve`, { winningConditionId: q(2).conditionId });
  tt.match(event.body, { winner: q(2).conditionId, questions: [{ status: 'resolved', winningOutcome: 1 }, { status: 'resolved', winningOutcome: 1 }, { status: 'resolved', winningOutcome: 0 }], paidAhead: '20' });
  tt.match(await bob.l2('POST', '/convert', { negRiskMarketId: EVENT, indexSet: '3', amount: '1' }), { status: 400, body: { error: /has resolved questions/ } });
  sound(tt, 'after resolution');
  // bob: 10 NO of questions 0 and 1 (winners), 10 YES of question 2 (winner); alice: 30 YES + 30 NO of 0 and 1.
  const redeem = async (trader: Trader, i: number): Promise<string> => ((await trader.l2('POST', '/redeem', { market: q(i).conditionId })).body as { payout: string }).payout;
  tt.same([await redeem(bob, 0), await redeem(bob, 1), await redeem(bob, 2)], [String(units(10)), String(units(10)), String(units(10))]);
  tt.same([await redeem(alice, 0), await redeem(alice, 1)], [String(units(30)), String(units(30))]);
  sound(tt, 'after redemption');
  tt.equal(engine.balances(bob.account)?.free, units(200 - 14 - 16 + 10 + 30), 'bob: 200 − 30 paid + 10 converted + 30 redeemed');
  tt.equal(engine.balances(alice.account)?.free, units(200 - 100 + 30 + 60), 'alice: 200 − 100 split + 30 sold + 60 redeemed');
});
