// The master secret: from the setting, or created once in <dataDir>/auth.secret with mode 0600 and read back
// on later starts; concurrent first starts agree; a damaged file stops start-up instead of being replaced.

import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterSecret, MASTER_SECRET_FILE } from '../../auth/index.js';
import { parseConfig } from '../../config/index.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'pmx-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('created once with mode 0600, then read back', async (t) => {
  const dir = tempDir(t);
  const first = await loadMasterSecret({ dataDir: dir });
  t.equal(first.source, 'created');
  t.equal(first.key.length, 32);
  const path = join(dir, MASTER_SECRET_FILE);
  t.equal(first.path, path);
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.match(readFileSync(path, 'utf8'), /^[0-9a-f]{64}\n$/);
  const second = await loadMasterSecret({ dataDir: dir });
  t.equal(second.source, 'file');
  t.same(second.key, first.key, 'the same secret after a restart');
  t.same(readdirSync(dir), [MASTER_SECRET_FILE], 'no temp files left');
});

t.test('two first starts at once end with one secret', async (t) => {
  const dir = tempDir(t);
  const results = await Promise.all([1, 2, 3, 4].map(() => loadMasterSecret({ dataDir: dir })));
  const keys = new Set(results.map((r) => r.key.toString('hex')));
  t.equal(keys.size, 1);
  t.equal(results.filter((r) => r.source === 'created').length, 1, 'exactly one created it');
  t.same(readdirSync(dir), [MASTER_SECRET_FILE]);
});

t.test('the setting wins and touches no file', async (t) => {
  const dir = tempDir(t);
  const secret = 'a configured master secret of 32+ characters';
  const result = await loadMasterSecret({ dataDir: dir, authSecret: secret });
  t.same(result, { key: Buffer.from(secret, 'utf8'), source: 'setting' });
  t.same(readdirSync(dir), []);
  t.equal((await loadMasterSecret({ dataDir: dir, authSecret: '' })).source, 'created', 'an empty setting is unset');
});

t.test('a damaged file stops start-up and is left alone', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, MASTER_SECRET_FILE);
  writeFileSync(path, 'not a secret\n');
  await t.rejects(loadMasterSecret({ dataDir: dir }), /auth\.secret does not hold a master secret/);
  t.equal(readFileSync(path, 'utf8'), 'not a secret\n');
  await t.rejects(loadMasterSecret({ dataDir: join(dir, 'missing') }), { code: 'ENOENT' }, 'a missing data directory is an I/O error');
});

t.test('PMX_AUTH_SECRET is an optional secret setting of at least 32 characters', async (t) => {
  const unset = parseConfig([], {});
  t.equal(unset.kind === 'config' && unset.config.authSecret, undefined);
  const set = parseConfig([], { PMX_AUTH_SECRET: 'x'.repeat(32) });
  t.equal(set.kind === 'config' && set.config.authSecret, 'x'.repeat(32));
  const short = parseConfig([], { PMX_AUTH_SECRET: 'too-short-secret' });
  t.equal(short.kind, 'invalid');
  t.notMatch(JSON.stringify(short), 'too-short-secret', 'never echoed back');
});
