// The operator API against the running service over HTTP: off without a token; 401 for a missing or wrong
// token on every route, before the body is read; each endpoint's success; bad input answered 400 with the
// engine state untouched (same state hash, same log position); engine refusals with the engine's status
// and message; and the new engine events through the log, the projector and a restart.

import t, { type Test } from 'tap';
import { startTestService } from '../support/serviceFixture.js';
import { clearOfTimedCommands, holdTimedCommands } from '../support/timedCommands.js';

const TOKEN = 'operator-token-for-the-tests-0123456789';
const AUTH = `Bearer ${TOKEN}`;
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const ALICE_CHECKSUMMED = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const SAFE = '0x' + '5afe'.repeat(10);
const CID_A = '0x' + 'a1'.repeat(32);
const CID_B = '0x' + 'b2'.repeat(32);
const CID_UNKNOWN = '0x' + 'ee'.repeat(32);
const TOKENS_A = ['111111', '111112'];
const TOKENS_B = ['222221', '222222'];

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

async function call(baseUrl: string, method: string, path: string, body?: unknown, authorization: string | null = AUTH): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(baseUrl + path, { method, headers, body: payload });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: res.headers };
}

t.test('without an operator token the operator API does not exist', async (t) => {
  const svc = await startTestService();
  t.teardown(svc.close);
  for (const [method, path] of [['POST', '/operator/deposit'], ['GET', `/operator/accounts/${ALICE}`], ['POST', '/operator/signers'], ['DELETE', '/operator/signers']] as const) {
    const answer = await call(svc.baseUrl, method, path, method === 'GET' ? undefined : { address: ALICE, amount: '1' });
    t.equal(answer.status, 404, `${method} ${path}`);
  }
  t.equal(svc.service.engine.engine.balances(ALICE), undefined, 'nothing was deposited');
});

const svc = await startTestService({ operatorToken: TOKEN });
let running = true;
const stop = async (): Promise<void> => {
  if (running) await svc.close();
  running = false;
};
t.teardown(stop);
const host = svc.service.engine;
const engine = host.engine;
const api = (method: string, path: string, body?: unknown, authorization: string | null = AUTH): Promise<Answer> => call(svc.baseUrl, method, path, body, authorization);

/** Sends a request that must be refused with `status` and must leave the engine exactly as it was. */
async function refusedUnchanged(t: Test, label: string, status: number, send: () => Promise<Answer>, error?: string | RegExp): Promise<Answer> {
  const release = await holdTimedCommands(host);
  try {
    const hash = engine.stateHash();
    const position = host.position;
    const answer = await send();
    t.equal(answer.status, status, `${label}: ${status}`);
    t.type(answer.body.error, 'string', `${label}: {error}`);
    if (error !== undefined) t.match(answer.body.error, error, `${label}: message`);
    t.equal(engine.stateHash(), hash, `${label}: state unchanged`);
    t.equal(host.position, position, `${label}: nothing logged`);
    return answer;
  } finally {
    release();
  }
}

/** An engine refusal: the reject's status and message; balances and markets untouched (only the sequence moves). */
async function engineRefused(t: Test, label: string, status: number, message: string | RegExp, send: () => Promise<Answer>): Promise<void> {
  const answer = await send();
  t.equal(answer.status, status, `${label}: ${status}`);
  t.match(answer.body, { error: message }, `${label}: the engine's message`);
}

t.test('every route refuses a missing or wrong token with 401 before reading anything, and changes nothing', async (t) => {
  const routes: [string, string, unknown][] = [
    ['POST', '/operator/deposit', { address: ALICE, amount: '10' }],
    ['POST', '/operator/withdraw', { address: ALICE, amount: '10' }],
    ['GET', `/operator/accounts/${ALICE}`, undefined],
    ['POST', '/operator/markets', { conditionId: CID_UNKNOWN, tokenIds: ['9', '8'] }],
    ['GET', `/operator/markets/${CID_UNKNOWN}`, undefined],
    ['POST', `/operator/markets/${CID_UNKNOWN}/params`, { tickSize: '0.001' }],
    ['POST', `/operator/markets/${CID_UNKNOWN}/pause`, undefined],
    ['POST', `/operator/markets/${CID_UNKNOWN}/resume`, undefined],
    ['POST', `/operator/markets/${CID_UNKNOWN}/resolve`, { winningOutcome: 0 }],
    ['POST', '/operator/signers', { maker: SAFE, signer: ALICE }],
    ['DELETE', '/operator/signers', { maker: SAFE, signer: ALICE }],
    ['GET', `/operator/signers/${SAFE}`, undefined],
  ];
  const wrong: [string, string | null][] = [
    ['no header', null],
    ['wrong token', 'Bearer operator-token-for-the-tests-0123456780'],
    ['token prefix', `Bearer ${TOKEN.slice(0, -1)}`],
    ['token with a suffix', `${AUTH}x`],
    ['another scheme', `Basic ${TOKEN}`],
    ['scheme only', 'Bearer'],
    ['bare token', TOKEN],
  ];
  for (const [method, path, body] of routes) {
    for (const [label, authorization] of wrong) {
      const answer = await refusedUnchanged(t, `${method} ${path}, ${label}`, 401, () => api(method, path, body, authorization), /^unauthorized: the operator API needs Authorization: Bearer/);
      t.equal(answer.headers.get('www-authenticate'), 'Bearer realm="operator"');
    }
  }
  await refusedUnchanged(t, 'a malformed body with a wrong token is still a 401', 401, () => api('POST', '/operator/deposit', '{not json', 'Bearer nope'));
  t.equal(engine.balances(ALICE), undefined);
  t.equal((await api('GET', `/operator/accounts/${ALICE}`, undefined, `bearer  ${TOKEN}`)).status, 200, 'the scheme is case-insensitive');
});

t.test('deposit and withdraw: decimal USDC strings, exact, to and from the free balance', async (t) => {
  const deposited = await api('POST', '/operator/deposit', { address: ALICE_CHECKSUMMED, amount: '100.5' });
  t.equal(deposited.status, 200);
  t.same(deposited.body, { address: ALICE, balance: { free: '100.5', reserved: '0' } }, 'the address is lower-cased');
  t.equal(engine.balances(ALICE)?.free, 100_500_000);
  t.same((await api('POST', '/operator/deposit', { address: ALICE, amount: '0.000001' })).body, { address: ALICE, balance: { free: '100.500001', reserved: '0' } });
  t.same((await api('POST', '/operator/withdraw', { address: ALICE, amount: '50.000001' })).body, { address: ALICE, balance: { free: '50.5', reserved: '0' } });
  t.equal(engine.balances(ALICE)?.free, 50_500_000);

  const bad: [string, unknown, string | RegExp][] = [
    ['a JSON number', { address: ALICE, amount: 10 }, 'amount must be a string'],
    ['seven decimals', { address: ALICE, amount: '1.0000001' }, /^amount must be a decimal string with at most 6 decimals/],
    ['negative', { address: ALICE, amount: '-1' }, /decimal string/],
    ['zero', { address: ALICE, amount: '0.000000' }, /above 0/],
    ['exponent', { address: ALICE, amount: '1e6' }, /decimal string/],
    ['leading zero', { address: ALICE, amount: '01' }, /decimal string/],
    ['a dot without decimals', { address: ALICE, amount: '1.' }, /decimal string/],
    ['spaces', { address: ALICE, amount: ' 1' }, /decimal string/],
    ['beyond the balance limit', { address: ALICE, amount: '4503599627.370497' }, /at most 4503599627.370496/],
    ['far beyond', { address: ALICE, amount: '99999999999999999999' }, /decimal string/],
    ['a bad address', { address: '0x1234', amount: '1' }, 'address must be 0x followed by 40 hex digits'],
    ['a missing address', { amount: '1' }, 'address is required'],
    ['an unknown field', { address: ALICE, amount: '1', memo: 'x' }, 'memo is not allowed'],
    ['an array', [ALICE, '1'], 'body must be an object'],
    ['not JSON', '{"address":', 'body is not valid JSON'],
    ['no body', undefined, 'a JSON body is required'],
  ];
  for (const path of ['/operator/deposit', '/operator/withdraw']) {
    for (const [label, body, error] of bad) await refusedUnchanged(t, `${path}: ${label}`, 400, () => api('POST', path, body), error);
  }
  await engineRefused(t, 'withdrawing more than the free balance', 400, 'not enough balance / allowance', () => api('POST', '/operator/withdraw', { address: ALICE, amount: '50.500001' }));
  await engineRefused(t, 'withdrawing from an unknown address', 400, 'not enough balance / allowance', () => api('POST', '/operator/withdraw', { address: BOB, amount: '1' }));
  await engineRefused(t, 'a deposit past the engine-wide limit', 400, 'deposit refused: balance would exceed the engine limit', () => api('POST', '/operator/deposit', { address: BOB, amount: '4503599627.370496' }));
  t.equal(engine.balances(ALICE)?.free, 50_500_000, 'refusals moved no money');
  t.equal(engine.balances(BOB)?.free ?? 0, 0);
});

t.test('markets: list, read, change parameters, pause, resume and resolve', async (t) => {
  const listed = await api('POST', '/operator/markets', { conditionId: CID_A.toUpperCase().replace('0X', '0x'), tokenIds: TOKENS_A });
  t.equal(listed.status, 200);
  t.same(listed.body, {
    conditionId: CID_A, tokenIds: TOKENS_A, tickSize: '0.01', minSize: '5', makerFeeBps: 0, takerFeeBps: 0, negRisk: false, status: 'active', winningOutcome: null,
  }, 'defaults: tick 0.01, minimum 5 shares, no fees; the condition id lower-cased');
  t.same(engine.market(CID_A)?.params, { tickSize: 10_000, minSize: 5_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  const explicit = await api('POST', '/operator/markets', { conditionId: CID_B, tokenIds: TOKENS_B, tickSize: '0.001', minSize: '2.5', makerFeeBps: 10, takerFeeBps: 200, negRisk: true });
  t.match(explicit.body, { conditionId: CID_B, tickSize: '0.001', minSize: '2.5', makerFeeBps: 10, takerFeeBps: 200, negRisk: true });
  t.same((await api('GET', `/operator/markets/${CID_B}`)).body, explicit.body, 'GET reads the same market');

  const list = (over: Record<string, unknown>) => () => api('POST', '/operator/markets', { conditionId: CID_UNKNOWN, tokenIds: ['9001', '9002'], ...over });
  const badListings: [string, Record<string, unknown>, string | RegExp][] = [
    ['a short condition id', { conditionId: '0x1234' }, 'Invalid market'],
    ['one token id', { tokenIds: ['9001'] }, 'tokenIds must have at least 2 items'],
    ['three token ids', { tokenIds: ['1', '2', '3'] }, 'tokenIds must have at most 2 items'],
    ['the same token twice', { tokenIds: ['9001', '9001'] }, 'tokenIds must be two different token ids'],
    ['a token id with a leading zero', { tokenIds: ['09001', '9002'] }, /^tokenIds.0 must be a decimal token id/],
    ['a hex token id', { tokenIds: ['9001', '0x12'] }, /^tokenIds.1 must be a decimal token id/],
    ['a token id of 2^256', { tokenIds: ['9001', (2n ** 256n).toString()] }, /^tokenIds.1 must be a decimal token id/],
    ['a numeric tick', { tickSize: 0.01 }, 'tickSize must be a string'],
    ['a tick that does not divide 1', { tickSize: '0.003' }, /^tickSize must be a multiple of 0.0001/],
    ['a tick of 0.5', { tickSize: '0.5' }, /^tickSize must be/],
    ['a tick finer than 0.0001', { tickSize: '0.00001' }, /^tickSize must be/],
    ['a tick of 1', { tickSize: '1' }, /^tickSize must be/],
    ['a minimum size of part of a lot', { minSize: '0.001' }, /^minSize must be a positive multiple of 0.01 share/],
    ['a minimum size of 0', { minSize: '0' }, /^minSize must be/],
    ['a fee above 100%', { takerFeeBps: 10_001 }, 'takerFeeBps must be <= 10000'],
    ['a fractional fee', { makerFeeBps: 1.5 }, 'makerFeeBps must be an integer'],
    ['negRisk as text', { negRisk: 'yes' }, 'negRisk must be a boolean'],
    ['an unknown field', { question: 'Will it?' }, 'question is not allowed'],
  ];
  for (const [label, over, error] of badListings) await refusedUnchanged(t, `list: ${label}`, 400, list(over), error);
  await engineRefused(t, 'listing a listed market', 400, `market ${CID_A} is already listed`, () => api('POST', '/operator/markets', { conditionId: CID_A, tokenIds: ['9001', '9002'] }));
  await engineRefused(t, 'listing a token of another market', 400, `token ${TOKENS_A[0]} already belongs to a market`, list({ tokenIds: [TOKENS_A[0], '9002'] }));
  t.equal(engine.market(CID_UNKNOWN), undefined);

  await refusedUnchanged(t, 'GET of an unlisted market', 404, () => api('GET', `/operator/markets/${CID_UNKNOWN}`), 'market not found');
  await refusedUnchanged(t, 'GET of a malformed id', 400, () => api('GET', '/operator/markets/0x12'), 'Invalid market');

  const params = await api('POST', `/operator/markets/${CID_A}/params`, { tickSize: '0.001', takerFeeBps: 50 });
  t.match(params.body, { tickSize: '0.001', minSize: '5', takerFeeBps: 50, makerFeeBps: 0 });
  t.equal(engine.market(CID_A)?.params.tickSize, 1_000);
  await refusedUnchanged(t, 'params: nothing to change', 400, () => api('POST', `/operator/markets/${CID_A}/params`, {}), /^give at least one of/);
  await refusedUnchanged(t, 'params: a bad tick', 400, () => api('POST', `/operator/markets/${CID_A}/params`, { tickSize: '0.03' }), /^tickSize must be/);
  await refusedUnchanged(t, 'params: a malformed id', 400, () => api('POST', '/operator/markets/xyz/params', { tickSize: '0.01' }), 'Invalid market');
  await engineRefused(t, 'params of an unlisted market', 404, 'market not found', () => api('POST', `/operator/markets/${CID_UNKNOWN}/params`, { tickSize: '0.01' }));

  t.match((await api('POST', `/operator/markets/${CID_A}/pause`)).body, { status: 'paused' });
  t.equal(engine.market(CID_A)?.status, 'paused');
  await engineRefused(t, 'pausing a paused market', 400, `market ${CID_A} cannot go from paused to paused`, () => api('POST', `/operator/markets/${CID_A}/pause`));
  t.match((await api('POST', `/operator/markets/${CID_A}/resume`)).body, { status: 'active' });
  await engineRefused(t, 'resuming an unlisted market', 404, 'market not found', () => api('POST', `/operator/markets/${CID_UNKNOWN}/resume`));
  await refusedUnchanged(t, 'pause: a malformed id', 400, () => api('POST', '/operator/markets/0xzz/pause'), 'Invalid market');

  const resolve = (body: unknown, cid = CID_A) => () => api('POST', `/operator/markets/${cid}/resolve`, body);
  await refusedUnchanged(t, 'resolve: both winners', 400, resolve({ winningOutcome: 1, winningTokenId: TOKENS_A[1] }), 'give exactly one of winningOutcome and winningTokenId');
  await refusedUnchanged(t, 'resolve: no winner', 400, resolve({}), 'give exactly one of winningOutcome and winningTokenId');
  await refusedUnchanged(t, 'resolve: outcome 2', 400, resolve({ winningOutcome: 2 }), /^winningOutcome must be one of 0, 1/);
  await refusedUnchanged(t, "resolve: another market's token", 400, resolve({ winningTokenId: TOKENS_B[0] }), `winningTokenId ${TOKENS_B[0]} is not a token of market ${CID_A}`);
  await refusedUnchanged(t, 'resolve by token: an unlisted market', 404, resolve({ winningTokenId: '1' }, CID_UNKNOWN), 'market not found');
  const resolved = await api('POST', `/operator/markets/${CID_A}/resolve`, { winningTokenId: TOKENS_A[1] });
  t.match(resolved.body, { conditionId: CID_A, status: 'resolved', winningOutcome: 1 }, 'resolved by its winning token id');
  t.match((await api('POST', `/operator/markets/${CID_B}/resolve`, { winningOutcome: 0 })).body, { status: 'resolved', winningOutcome: 0 });
  await engineRefused(t, 'resolving a resolved market', 400, /^market 0x(a1)+ cannot go from resolved to resolved$/, resolve({ winningOutcome: 0 }));
  await engineRefused(t, 'resolving an unlisted market', 404, 'market not found', resolve({ winningOutcome: 0 }, CID_UNKNOWN));
});

t.test('accounts: collateral and token holdings as decimal strings', async (t) => {
  const cid = '0x' + 'c3'.repeat(32);
  await api('POST', '/operator/markets', { conditionId: cid, tokenIds: ['333332', '333331'] });
  await api('POST', '/operator/deposit', { address: BOB, amount: '20' });
  await host.submit({ type: 'Split', account: BOB, conditionId: cid, amount: 7_250_000 });
  const account = await api('GET', `/operator/accounts/${BOB.toUpperCase().replace('0X', '0x')}`);
  t.equal(account.status, 200);
  t.same(account.body, {
    address: BOB,
    collateral: { free: '12.75', reserved: '0' },
    tokens: [{ tokenId: '333331', free: '7.25', reserved: '0' }, { tokenId: '333332', free: '7.25', reserved: '0' }],
  }, 'tokens sorted by id');
  const stranger = '0x' + '0'.repeat(39) + '1';
  t.same((await api('GET', `/operator/accounts/${stranger}`)).body, { address: stranger, collateral: { free: '0', reserved: '0' }, tokens: [] }, 'an unknown address holds nothing');
  await refusedUnchanged(t, 'a malformed address', 400, () => api('GET', '/operator/accounts/0x123'), 'address must be 0x followed by 40 hex digits');
});

t.test('signers: authorise, list, revoke; refusals', async (t) => {
  const added = await api('POST', '/operator/signers', { maker: SAFE.toUpperCase().replace('0X', '0x'), signer: ALICE_CHECKSUMMED });
  t.equal(added.status, 200);
  t.same(added.body, { maker: SAFE, signers: [ALICE] });
  t.equal(engine.signerAuthorized(SAFE, ALICE), true);
  t.same((await api('POST', '/operator/signers', { maker: SAFE, signer: BOB })).body, { maker: SAFE, signers: [BOB, ALICE].sort() });
  t.same((await api('GET', `/operator/signers/${SAFE}`)).body, { maker: SAFE, signers: [BOB, ALICE].sort() });
  t.same((await api('GET', `/operator/signers/${ALICE}`)).body, { maker: ALICE, signers: [] });

  await engineRefused(t, 'authorising twice', 400, `signer ${ALICE} is already authorised for maker ${SAFE}`, () => api('POST', '/operator/signers', { maker: SAFE, signer: ALICE }));
  const bad: [string, unknown, string | RegExp][] = [
    ['a short signer', { maker: SAFE, signer: '0x1234' }, 'signer must be 0x followed by 40 hex digits'],
    ['a maker without 0x', { maker: SAFE.slice(2), signer: ALICE }, 'maker must be 0x followed by 40 hex digits'],
    ['no signer', { maker: SAFE }, 'signer is required'],
    ['a numeric signer', { maker: SAFE, signer: 5 }, 'signer must be a string'],
    ['an unknown field', { maker: SAFE, signer: ALICE, type: 1 }, 'type is not allowed'],
    ['not JSON', 'maker=x', 'body is not valid JSON'],
  ];
  for (const method of ['POST', 'DELETE']) {
    for (const [label, body, error] of bad) await refusedUnchanged(t, `${method} signers: ${label}`, 400, () => api(method, '/operator/signers', body), error);
  }
  await refusedUnchanged(t, 'GET signers of a malformed maker', 400, () => api('GET', '/operator/signers/nope'), 'maker must be 0x followed by 40 hex digits');
  // A maker signs its own orders without authorisation: authorising it changes nothing; the engine refuses to revoke it.
  t.same((await api('POST', '/operator/signers', { maker: SAFE, signer: SAFE })).body, { maker: SAFE, signers: [BOB, ALICE].sort() }, 'the maker as its own signer: nothing to authorise');
  await engineRefused(t, 'revoking the maker as its own signer', 400, /^invalid command: signer must differ from maker/, () => api('DELETE', '/operator/signers', { maker: SAFE, signer: SAFE }));

  t.same((await api('DELETE', '/operator/signers', { maker: SAFE, signer: BOB })).body, { maker: SAFE, signers: [ALICE] });
  t.equal(engine.signerAuthorized(SAFE, BOB), false);
  await engineRefused(t, 'revoking a missing pair', 404, `signer ${BOB} is not authorised for maker ${SAFE}`, () => api('DELETE', '/operator/signers', { maker: SAFE, signer: BOB }));
  t.same(engine.signersOf(SAFE), [ALICE]);
});

t.test('the new events go through the log and the projector, and a restart recovers them', async (t) => {
  // A restart takes seconds: no AdvanceTime of the host's may fall between the hash and the restarted state.
  await clearOfTimedCommands(host, 20_000);
  await svc.service.projector.waitFor(host.position);
  t.equal(svc.service.projector.position, host.position, 'the projector passed over the signer events');
  const hash = engine.stateHash();
  const { dataDir, clickhouseDatabase } = svc.service.config;
  await stop();
  const again = await startTestService({ dataDir, clickhouseDatabase, operatorToken: TOKEN });
  t.teardown(again.close);
  t.equal(again.service.engine.engine.stateHash(), hash, 'the same state after restart');
  t.same((await call(again.baseUrl, 'GET', `/operator/signers/${SAFE}`)).body, { maker: SAFE, signers: [ALICE] });
  t.same((await call(again.baseUrl, 'GET', `/operator/accounts/${ALICE}`)).body, { address: ALICE, collateral: { free: '50.5', reserved: '0' }, tokens: [] });
});
