// L2 (HMAC) verification: the upstream vector, headers made by the official client, every accepted
// signature encoding, the path and method rules, freshness, and refusals that never throw.

import t from 'tap';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { Wallet } from 'ethers';
import { createL2Headers } from '@polymarket/clob-client-v2';
import { decodeL2Signature, l2SigningString, signL2, verifyL2Headers, type HeaderBag, type L2Credentials } from '../../auth/index.js';
import { TEST_ADDRESS, clientSigner } from './fixtures.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 300);
const API_KEY = '5c8a1b2e-3f4d-4a6b-8c7d-9e0f1a2b3c4d';
const CREDS: L2Credentials = { address: TEST_ADDRESS, secret: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', passphrase: 'p'.repeat(64) };
const lookup = (key: string): L2Credentials | undefined => (key === API_KEY ? CREDS : undefined);
const NOW = 1_000_000;
const OPTS = { nowSec: NOW, freshnessSec: 30 };
const VECTOR_SIG = 'ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=';

function headers(over: Record<string, string | undefined> = {}): HeaderBag {
  return {
    POLY_ADDRESS: TEST_ADDRESS, POLY_API_KEY: API_KEY, POLY_PASSPHRASE: CREDS.passphrase, POLY_TIMESTAMP: String(NOW),
    POLY_SIGNATURE: VECTOR_SIG, ...over,
  };
}

const VECTOR_REQUEST = { method: 'test-sign', path: '/orders', body: '{"hash": "0x123"}' };

t.test('the upstream vector', async (t) => {
  t.equal(signL2(CREDS.secret, '1000000', 'test-sign', '/orders', '{"hash": "0x123"}'), VECTOR_SIG);
  t.equal(l2SigningString('1000000', 'test-sign', '/orders', '{"hash": "0x123"}'), '1000000test-sign/orders{"hash": "0x123"}');
  t.same(verifyL2Headers(headers(), VECTOR_REQUEST, lookup, OPTS), {
    ok: true,
    value: { address: TEST_ADDRESS, apiKey: API_KEY, signature: Buffer.from(VECTOR_SIG, 'base64url').toString('hex'), timestampSec: NOW },
  });
});

t.test('headers made by the official clob-client-v2 verify, with and without a body', async (t) => {
  const wallet = Wallet.createRandom();
  const creds = { key: API_KEY, secret: Buffer.from('k'.repeat(32)).toString('base64url'), passphrase: 'x'.repeat(64) };
  const ours = (key: string): L2Credentials | undefined => (key === API_KEY ? { address: wallet.address.toLowerCase(), secret: creds.secret, passphrase: creds.passphrase } : undefined);
  const body = JSON.stringify({ order: { salt: 1 }, owner: API_KEY, orderType: 'GTC' });
  for (const [method, requestPath, payload] of [['POST', '/order', body], ['GET', '/data/orders', undefined], ['DELETE', '/cancel-all', undefined]] as const) {
    const h = await createL2Headers(clientSigner(wallet), creds, { method, requestPath, ...(payload === undefined ? {} : { body: payload }) }, NOW);
    const result = verifyL2Headers(h as unknown as HeaderBag, { method: method.toLowerCase(), path: requestPath, ...(payload === undefined ? {} : { body: Buffer.from(payload) }) }, ours, OPTS);
    const signature = Buffer.from(String((h as unknown as Record<string, string>).POLY_SIGNATURE), 'base64url').toString('hex');
    t.same(result, { ok: true, value: { address: wallet.address, apiKey: API_KEY, signature, timestampSec: NOW } }, `${method} ${requestPath}`);
  }
});

t.test('accepted signature encodings: url-safe base64 with or without =, standard base64, hex', async (t) => {
  const raw = createHmac('sha256', Buffer.from(CREDS.secret, 'base64')).update('1000000test-sign/orders{"hash": "0x123"}').digest();
  for (const [label, sig] of [
    ['url-safe with =', VECTOR_SIG],
    ['url-safe without =', VECTOR_SIG.replace(/=$/, '')],
    ['standard base64', raw.toString('base64')],
    ['hex', raw.toString('hex')],
    ['0x hex', '0x' + raw.toString('hex')],
    ['upper-case hex', raw.toString('hex').toUpperCase()],
  ] as const) {
    t.match(verifyL2Headers(headers({ POLY_SIGNATURE: sig }), VECTOR_REQUEST, lookup, OPTS), { ok: true }, label);
  }
  t.equal(decodeL2Signature('abc'), undefined);
  t.equal(decodeL2Signature(VECTOR_SIG + '='), undefined);
  t.match(verifyL2Headers(headers({ POLY_SIGNATURE: 'not a signature' }), VECTOR_REQUEST, lookup, OPTS), { ok: false, detail: /url-safe base64, base64 or hex/ });
});

t.test('the secret decodes as url-safe or standard base64, padded or not', async (t) => {
  const bytes = Buffer.from('fb-ff_fe?>?'.repeat(3).slice(0, 32));
  const variants = [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url') + '='];
  const expected = signL2(variants[0] ?? '', '1', 'GET', '/x');
  for (const secret of variants) t.equal(signL2(secret, '1', 'GET', '/x'), expected, secret);
});

t.test('method, path, query and body rules', async (t) => {
  const sign = (method: string, path: string, body?: string): HeaderBag => headers({ POLY_SIGNATURE: signL2(CREDS.secret, String(NOW), method, path, body) });
  t.match(verifyL2Headers(sign('GET', '/data/trades'), { method: 'get', path: '/data/trades?market=0x1&next_cursor=MA==' }, lookup, OPTS), { ok: true }, 'query not signed (as the clients do)');
  t.match(verifyL2Headers(sign('GET', '/data/trades?market=0x1'), { method: 'GET', path: '/data/trades?market=0x1' }, lookup, OPTS), { ok: true }, 'query signed is accepted too');
  t.match(verifyL2Headers(sign('GET', '/data/trades'), { method: 'POST', path: '/data/trades' }, lookup, OPTS), { ok: false, detail: /does not match/ }, 'the method is signed');
  t.match(verifyL2Headers(sign('GET', '/data/trades'), { method: 'GET', path: '/data/orders' }, lookup, OPTS), { ok: false }, 'the path is signed');
  t.match(verifyL2Headers(sign('POST', '/order', '{"a":1}'), { method: 'POST', path: '/order', body: '{"a": 1}' }, lookup, OPTS), { ok: false }, 'the body is signed byte for byte');
  t.match(verifyL2Headers(sign('DELETE', '/cancel-all'), { method: 'DELETE', path: '/cancel-all', body: '' }, lookup, OPTS), { ok: true }, 'an empty body is no body');
  t.match(verifyL2Headers(sign('POST', '/order', '{"é":"ü"}'), { method: 'POST', path: '/order', body: Buffer.from('{"é":"ü"}') }, lookup, OPTS), { ok: true }, 'UTF-8 body as raw bytes');
});

t.test('each refusal says why, all under one public error', async (t) => {
  const cases: [string, HeaderBag, RegExp][] = [
    ['no api key', headers({ POLY_API_KEY: undefined }), /missing header POLY_API_KEY/],
    ['no passphrase', headers({ POLY_PASSPHRASE: undefined }), /missing header POLY_PASSPHRASE/],
    ['no address', headers({ POLY_ADDRESS: undefined }), /missing header POLY_ADDRESS/],
    ['no signature', headers({ POLY_SIGNATURE: undefined }), /missing header POLY_SIGNATURE/],
    ['no timestamp', headers({ POLY_TIMESTAMP: undefined }), /missing header POLY_TIMESTAMP/],
    ['unknown key', headers({ POLY_API_KEY: '00000000-0000-4000-8000-000000000000' }), /unknown or deleted API key/],
    ['another address', headers({ POLY_ADDRESS: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }), /POLY_ADDRESS is not the address of this API key/],
    ['wrong passphrase', headers({ POLY_PASSPHRASE: 'q'.repeat(64) }), /wrong passphrase/],
    ['short passphrase', headers({ POLY_PASSPHRASE: 'p' }), /wrong passphrase/],
    ['stale', headers({ POLY_TIMESTAMP: String(NOW - 31) }), /31 s behind/],
    ['future', headers({ POLY_TIMESTAMP: String(NOW + 31) }), /31 s ahead/],
    ['ms timestamp', headers({ POLY_TIMESTAMP: String(NOW * 1000) }), /ahead/],
    ['bad signature', headers({ POLY_SIGNATURE: VECTOR_SIG.replace('Z', 'Y') }), /does not match/],
  ];
  for (const [label, h, detail] of cases) t.match(verifyL2Headers(h, VECTOR_REQUEST, lookup, OPTS), { ok: false, error: 'Unauthorized/Invalid api key', detail }, label);
  t.match(verifyL2Headers(headers({ POLY_ADDRESS: TEST_ADDRESS.toLowerCase() }), VECTOR_REQUEST, lookup, OPTS), { ok: true }, 'address in any case');
  const svc = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.replace('POLY_', 'svc_'), v]));
  t.match(verifyL2Headers(svc, VECTOR_REQUEST, lookup, OPTS), { ok: true }, 'SVC_* names');
  t.match(verifyL2Headers(headers(), VECTOR_REQUEST, lookup, { nowSec: NOW + 100, freshnessSec: 100 }), { ok: true }, 'the window is a parameter');
});

t.test('hostile headers and requests never throw', async (t) => {
  const valueArb = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(undefined));
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom('POLY_ADDRESS', 'POLY_API_KEY', 'poly_passphrase', 'POLY-TIMESTAMP', 'SVC_SIGNATURE', 'svc_api_key'), valueArb),
      fc.string(), fc.string(), fc.option(fc.oneof(fc.string(), fc.uint8Array()), { nil: undefined }),
      (changes, method, path, body) => {
        const result = verifyL2Headers({ ...headers(), ...changes }, { method, path, ...(body === undefined ? {} : { body }) }, lookup, OPTS);
        return result.ok || result.error === 'Unauthorized/Invalid api key';
      },
    ),
    { numRuns: RUNS },
  );
  t.pass('no throw');
});
