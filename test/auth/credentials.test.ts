// Derived API credentials and the registry over the engine: shapes like upstream, deterministic per
// (address, nonce), domain-separated, re-derived after a restart (snapshot restore), and usable end to end
// with the official client's L2 headers.

import t from 'tap';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { createL2Headers } from '@polymarket/clob-client-v2';
import { Engine, exportSnapshot, restoreSnapshot } from '../../engine/index.js';
import { ApiKeyRegistry, deriveApiKey, deriveCredentials, deriveSecrets, verifyL2Headers, type HeaderBag } from '../../auth/index.js';
import { TEST_ADDRESS, clientSigner } from './fixtures.js';

const MASTER = Buffer.from('a test master secret of enough length', 'utf8');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('shapes: UUID v4 key, 44-char base64url secret with padding, 64-hex passphrase', async (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (addr, nonce) => {
      const c = deriveCredentials(MASTER, '0x' + Buffer.from(addr).toString('hex'), nonce);
      return UUID_V4.test(c.apiKey) && /^[A-Za-z0-9_-]{43}=$/.test(c.secret) && Buffer.from(c.secret, 'base64url').length === 32 && /^[0-9a-f]{64}$/.test(c.passphrase);
    }),
    { numRuns: 200 },
  );
  t.pass('200 random slots');
});

t.test('deterministic per (address, nonce), case-blind, separated by nonce, address and master secret', async (t) => {
  const a = deriveCredentials(MASTER, TEST_ADDRESS, 0n);
  t.same(deriveCredentials(MASTER, TEST_ADDRESS.toLowerCase(), 0n), a, 'same slot, same credentials');
  t.not(deriveApiKey(MASTER, TEST_ADDRESS, 1n), a.apiKey, 'another nonce');
  t.not(deriveApiKey(MASTER, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 0n), a.apiKey, 'another address');
  t.not(deriveApiKey(Buffer.from('another master secret, also long'), TEST_ADDRESS, 0n), a.apiKey, 'another master secret');
  const s = deriveSecrets(MASTER, a.apiKey);
  t.not(s.secret, Buffer.from(s.passphrase, 'hex').toString('base64url') + '=', 'secret and passphrase are separate derivations');
  t.equal(deriveApiKey(MASTER, TEST_ADDRESS, 12n), deriveApiKey(MASTER, TEST_ADDRESS, BigInt('0012')), 'the nonce as a number');
});

function engineWithKey(address: string, nonce: bigint): { engine: Engine; apiKey: string } {
  const engine = new Engine();
  const apiKey = deriveApiKey(MASTER, address, nonce);
  const [event] = engine.apply({ type: 'CreateApiKey', time: 1, address: address.toLowerCase(), nonce: nonce.toString(), apiKey });
  if (event?.type !== 'ApiKeyCreated') throw new Error(`not created: ${JSON.stringify(event)}`);
  return { engine, apiKey };
}

t.test('the registry answers lookups, keys of an address and slots; secrets are re-derived after restore', async (t) => {
  const { engine, apiKey } = engineWithKey(TEST_ADDRESS, 0n);
  const registry = new ApiKeyRegistry(engine, MASTER);
  const expected = { apiKey, address: TEST_ADDRESS, nonce: '0', ...deriveSecrets(MASTER, apiKey) };
  t.same(registry.lookup(apiKey), expected);
  t.equal(registry.lookup('00000000-0000-4000-8000-000000000000'), undefined);
  t.same(registry.keysOf(TEST_ADDRESS), [apiKey], 'any case in');
  t.same(registry.keysOf('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'), []);
  t.match(registry.slot(TEST_ADDRESS, 0n), { state: 'live', credentials: { apiKey } });
  t.match(registry.slot(TEST_ADDRESS, 1n), { state: 'free', credentials: { apiKey: deriveApiKey(MASTER, TEST_ADDRESS, 1n) } });
  t.match(new ApiKeyRegistry(engine, Buffer.from('a different master secret, still long')).slot(TEST_ADDRESS, 0n), { state: 'closed' }, 'a key from another master secret');

  const restored = restoreSnapshot(JSON.parse(JSON.stringify(exportSnapshot(engine))));
  t.same(new ApiKeyRegistry(restored, MASTER).lookup(apiKey), expected, 'after a restart');

  engine.apply({ type: 'DeleteApiKey', time: 2, apiKey, address: TEST_ADDRESS.toLowerCase() });
  t.equal(registry.lookup(apiKey), undefined, 'a deleted key stops at once');
  t.same(registry.keysOf(TEST_ADDRESS), []);
  t.match(registry.slot(TEST_ADDRESS, 0n), { state: 'closed' });
});

t.test('end to end: credentials from the registry sign requests with the official client, verified by L2', async (t) => {
  const wallet = Wallet.createRandom();
  const { engine, apiKey } = engineWithKey(wallet.address, 7n);
  const registry = new ApiKeyRegistry(engine, MASTER);
  const info = registry.lookup(apiKey);
  if (info === undefined) throw new Error('no key');
  const now = Math.floor(Date.now() / 1000);
  const body = '{"orderID":"0xabc"}';
  const headers = await createL2Headers(clientSigner(wallet), { key: apiKey, secret: info.secret, passphrase: info.passphrase }, { method: 'DELETE', requestPath: '/order', body }, now);
  const result = verifyL2Headers(headers as unknown as HeaderBag, { method: 'DELETE', path: '/order', body }, (k) => registry.lookup(k), { nowSec: now, freshnessSec: 30 });
  const signature = Buffer.from(String((headers as unknown as Record<string, string>).POLY_SIGNATURE), 'base64url').toString('hex');
  t.same(result, { ok: true, value: { address: wallet.address, apiKey, signature, timestampSec: now } });
});
