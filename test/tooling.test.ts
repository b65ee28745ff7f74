// Repository tooling: the engine demo behind `npm start`, the dependency freshness check used by `npm test`
// and `npm start`, and docker-compose.yml naming only real settings.

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTING_NAMES, envVarOf, parseConfig } from '../config/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function demo(env: Record<string, string> = {}, args: string[] = []) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/engineDemo.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

t.test('the engine demo says what it is, trades, keeps the invariants and is deterministic', async (t) => {
  const first = demo();
  t.equal(first.status, 0, first.stderr);
  const lines = first.stdout.split('\n');
  t.match(lines[0], /^The HTTP service is not built yet: this is a demo of the matching engine/);
  t.match(first.stdout, /mint\s+40 @ 0\.5/);
  t.match(first.stdout, /normal\s+20 @ 0\.52/);
  t.match(first.stdout, /Invariants: all hold/);
  const hash = /State hash after \d+ events: ([0-9a-f]{64})/.exec(first.stdout)?.[1];
  t.ok(hash, 'prints the state hash');
  const second = demo();
  t.equal(second.stdout, first.stdout, 'same output, same state hash on every run');
});

t.test('the engine demo refuses bad settings with the config message and status 2', async (t) => {
  const run = demo({ PMX_FEE_ACCOUNT: 'nobody' }, ['--http-port=99999']);
  t.equal(run.status, 2);
  t.equal(run.stdout, '');
  t.match(run.stderr, /Invalid configuration \(2 problems\)/);
  t.match(run.stderr, /feeAccount \(--fee-account \/ PMX_FEE_ACCOUNT\): "nobody"/);
  t.match(run.stderr, /httpPort \(--http-port \/ PMX_HTTP_PORT\): "99999"/);
  const help = demo({}, ['--help']);
  t.equal(help.status, 0);
  t.match(help.stdout, /^Usage: npm start --/);
});

t.test('docker-compose.yml sets only real settings, with valid values', async (t) => {
  const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
  const known = new Set(SETTING_NAMES.map(envVarOf));
  const env: Record<string, string> = {};
  for (const match of compose.matchAll(/^\s+(PMX_[A-Z0-9_]+):\s*"?([^"\n]*)"?\s*$/gm)) {
    const [, key = '', value = ''] = match;
    t.ok(known.has(key), `${key} is a setting`);
    env[key] = value;
  }
  t.ok(Object.keys(env).length >= 8, 'the services are configured through PMX_ variables');
  const result = parseConfig([], env);
  t.equal(result.kind, 'config', JSON.stringify(result.kind === 'invalid' ? result.problems : []));
});

t.test('the dependency check finds missing, stale and extra packages', async (t) => {
  const dir = t.testdir({});
  const write = (path: string, value: unknown) => writeFileSync(join(dir, path), JSON.stringify(value));
  const check = () => spawnSync(process.execPath, [join(root, 'scripts/depsFresh.mjs')], { cwd: dir, encoding: 'utf8' });
  const lock = {
    packages: {
      '': { devDependencies: { a: '^1.0.0' } },
      'node_modules/a': { version: '1.2.0' },
      'node_modules/@esbuild/darwin-arm64': { version: '0.1.0', optional: true },
    },
  };
  write('package.json', { devDependencies: { a: '^1.0.0' } });
  write('package-lock.json', lock);
  t.match(check().stdout, /node_modules is missing/);
  mkdirSync(join(dir, 'node_modules'));
  write('node_modules/.package-lock.json', { packages: { 'node_modules/a': { version: '1.2.0' } } });
  t.equal(check().status, 0, 'fresh: an optional package for another platform may be absent');
  write('node_modules/.package-lock.json', { packages: { 'node_modules/a': { version: '1.1.0' } } });
  t.match(check().stdout, /node_modules\/a is 1\.1\.0, package-lock\.json wants 1\.2\.0/);
  write('node_modules/.package-lock.json', { packages: { 'node_modules/a': { version: '1.2.0' }, 'node_modules/b': { version: '1.0.0' } } });
  t.match(check().stdout, /node_modules\/b is installed but not in package-lock\.json/);
  write('node_modules/.package-lock.json', { packages: { 'node_modules/a': { version: '1.2.0' } } });
  write('package.json', { devDependencies: { a: '^1.0.0', c: '^2.0.0' } });
  t.match(check().stdout, /devDependencies\.c \(\^2\.0\.0\) differs from package-lock\.json/);
  t.equal(check().status, 1);
});
