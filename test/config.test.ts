// The configuration module: defaults, environment and flags, precedence, one clear error per bad value
// (all reported together), --help, and the README's configuration table kept equal to the settings table.

import t from 'tap';
import { readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  SETTINGS,
  SETTING_NAMES,
  envVarOf,
  flagOf,
  loadConfig,
  parseCidr,
  parseConfig,
  projectionLightLoadOf,
  renderHelp,
  renderSettingsTable,
  type Config,
  type ConfigProblem,
  type Env,
} from '../config/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function ok(argv: string[], env: Env = {}): Config {
  const result = parseConfig(argv, env);
  if (result.kind !== 'config') throw new Error(`expected a config, got ${JSON.stringify(result)}`);
  return result.config;
}

function problems(argv: string[], env: Env = {}): readonly ConfigProblem[] {
  const result = parseConfig(argv, env);
  if (result.kind !== 'invalid') throw new Error(`expected problems, got ${result.kind}`);
  return result.problems;
}

t.test('defaults give the embedded single-process mode', async (t) => {
  const result = parseConfig([], {});
  t.equal(result.kind, 'config');
  if (result.kind !== 'config') return;
  const c = result.config;
  t.equal(c.dataDir, './data');
  t.equal(c.httpHost, '127.0.0.1');
  t.equal(c.httpPort, 8080);
  t.equal(c.allowSlowUws, false);
  t.equal(c.logBackend, 'journal');
  t.same(c.kafkaBrokers, []);
  t.equal(c.kafkaTopic, 'engine-events');
  t.equal(c.clickhouseMode, 'embedded');
  t.equal(c.snapshotIntervalEvents, 100_000);
  t.equal(c.gtdSecurityMarginSec, 60);
  t.equal(c.chainId, 137);
  t.equal(c.exchangeAddress, '0xE111180000d2663C0091e4f400237545B87B996B');
  t.equal(c.negRiskExchangeAddress, '0xe2222d279d744050d28e00520010520000310F59');
  t.equal(c.authFreshnessSec, 30);
  t.equal(c.operatorToken, undefined, 'operator API off');
  t.same(c.activityIpAllowlist, ['0.0.0.0/0', '::/0'], 'allow all');
  t.equal(c.rateLimit, true);
  t.equal(c.catalogUpstreamUrl, undefined);
  t.equal(c.demoCatalog, true);
  t.equal(c.logLevel, 'info');
  t.same(Object.keys(c).sort(), [...SETTING_NAMES].sort(), 'one field per setting');
  t.ok(SETTING_NAMES.every((name) => result.sources[name] === 'default'));
  t.ok(Object.isFrozen(c), 'config is frozen');
  t.ok(Object.isFrozen(c.kafkaBrokers) && Object.isFrozen(c.activityIpAllowlist), 'lists are frozen');
  t.throws(() => {
    (c as { httpPort: number }).httpPort = 1;
  });
  t.equal(loadConfig([], {}).httpPort, 8080);
});

t.test('environment variables of every kind parse', async (t) => {
  const c = ok([], {
    PMX_DATA_DIR: '/var/lib/pmx',
    PMX_HTTP_PORT: '9000',
    PMX_ALLOW_SLOW_UWS: 'yes',
    PMX_LOG_BACKEND: 'kafka',
    PMX_KAFKA_BROKERS: ' 10.0.0.1:9092, broker-2:9093 ,',
    PMX_CLICKHOUSE_URL: 'https://ch.example:8443',
    PMX_FEE_ACCOUNT: '0x00000000000000000000000000000000000000aa',
    PMX_OPERATOR_TOKEN: 'a-long-enough-operator-token',
    PMX_ACTIVITY_IP_ALLOWLIST: '10.0.0.0/8,192.168.1.7,fd00::/8',
    PMX_RATE_LIMIT: 'off',
    PMX_CATALOG_UPSTREAM_URL: 'http://127.0.0.1:4000',
    PMX_LOG_LEVEL: 'debug',
  });
  t.equal(c.dataDir, '/var/lib/pmx');
  t.equal(c.httpPort, 9000);
  t.equal(c.allowSlowUws, true);
  t.equal(c.logBackend, 'kafka');
  t.same(c.kafkaBrokers, ['10.0.0.1:9092', 'broker-2:9093']);
  t.equal(c.clickhouseUrl, 'https://ch.example:8443');
  t.equal(c.feeAccount, '0x00000000000000000000000000000000000000aa');
  t.equal(c.operatorToken, 'a-long-enough-operator-token');
  t.same(c.activityIpAllowlist, ['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
  t.equal(c.rateLimit, false);
  t.equal(c.catalogUpstreamUrl, 'http://127.0.0.1:4000');
  t.equal(c.logLevel, 'debug');
});

t.test('an empty value leaves an optional setting unset', async (t) => {
  t.equal(ok([], { PMX_OPERATOR_TOKEN: '' }).operatorToken, undefined);
  t.equal(ok(['--catalog-upstream-url='], {}).catalogUpstreamUrl, undefined);
});

t.test('flags parse in every form', async (t) => {
  const c = ok(['--http-port', '9001', '--http-host=0.0.0.0', '--allow-slow-uws', '--no-rate-limit', '--demo-catalog=false', '--chain-id', '80002']);
  t.equal(c.httpPort, 9001);
  t.equal(c.httpHost, '0.0.0.0');
  t.equal(c.allowSlowUws, true);
  t.equal(c.rateLimit, false);
  t.equal(c.demoCatalog, false);
  t.equal(c.chainId, 80002);
});

t.test('boolean flags written "--flag true|false" take their value (regression: "Unexpected argument false")', async (t) => {
  const c = ok(['--rate-limit', 'false', '--header-edge', 'false', '--edge-thread', 'FALSE', '--allow-slow-uws', 'true', '--http-port', '9002']);
  t.same([c.rateLimit, c.headerEdge, c.edgeThread, c.allowSlowUws, c.httpPort], [false, false, false, true, 9002]);
  const bare = ok(['--allow-slow-uws', '--http-port', '9003']);
  t.same([bare.allowSlowUws, bare.httpPort], [true, 9003], 'a bare boolean flag before another flag is true');
  t.same([ok(['--no-rate-limit']).rateLimit, ok(['--rate-limit=false']).rateLimit, ok(['--rate-limit', 'off']).rateLimit, ok(['--rate-limit']).rateLimit], [false, false, false, true]);
  t.match(problems(['--rate-limit', 'maybe'])[0]?.message, /Unexpected argument "maybe"/, 'a non-boolean word after a boolean flag is not taken as its value');
});

t.test('a flag wins over its environment variable', async (t) => {
  const result = parseConfig(['--http-port=7000', '--no-demo-catalog'], { PMX_HTTP_PORT: '9000', PMX_DEMO_CATALOG: 'true', PMX_LOG_LEVEL: 'warn' });
  t.equal(result.kind, 'config');
  if (result.kind !== 'config') return;
  t.equal(result.config.httpPort, 7000);
  t.equal(result.config.demoCatalog, false);
  t.equal(result.config.logLevel, 'warn');
  t.equal(result.sources.httpPort, 'flag');
  t.equal(result.sources.logLevel, 'env');
  t.equal(result.sources.dataDir, 'default');
});

// One bad value per kind: the message names the setting, its flag and variable, the value and what is expected.
const badValues: Array<{ kind: string; name: keyof Config; value: string; expected: RegExp }> = [
  { kind: 'int (not a number)', name: 'httpPort', value: 'eighty', expected: /an integer from 0 to 65535/ },
  { kind: 'int (out of range)', name: 'httpPort', value: '70000', expected: /out of range.*an integer from 0 to 65535/ },
  { kind: 'int (fraction)', name: 'snapshotIntervalEvents', value: '1.5', expected: /an integer from 1 to/ },
  { kind: 'bool', name: 'rateLimit', value: 'maybe', expected: /true or false/ },
  { kind: 'enum', name: 'logBackend', value: 'kafak', expected: /one of journal, kafka/ },
  { kind: 'url', name: 'clickhouseUrl', value: 'not a url', expected: /an absolute http or https URL/ },
  { kind: 'url (scheme)', name: 'catalogUpstreamUrl', value: 'ftp://example.com', expected: /scheme is ftp.*http or https URL/ },
  { kind: 'list of host:port', name: 'kafkaBrokers', value: 'localhost:9092,nohostport', expected: /item "nohostport".*host:port/ },
  { kind: 'CIDR list (bad address)', name: 'activityIpAllowlist', value: '300.1.1.1/8', expected: /IPv4 or IPv6 CIDR/ },
  { kind: 'CIDR list (bad prefix)', name: 'activityIpAllowlist', value: '10.0.0.0/33', expected: /IPv4 or IPv6 CIDR/ },
  { kind: 'CIDR list (empty)', name: 'activityIpAllowlist', value: ' , ', expected: /at least one item/ },
  { kind: 'hex address', name: 'exchangeAddress', value: '0x1234', expected: /0x-prefixed 40-hex-digit address/ },
  { kind: 'string (pattern)', name: 'kafkaTopic', value: 'bad topic!', expected: /Kafka topic name/ },
  { kind: 'string (empty)', name: 'dataDir', value: '', expected: /non-empty string/ },
];

for (const bad of badValues) {
  t.test(`bad ${bad.kind} value is named clearly`, async (t) => {
    for (const [source, argv, env] of [
      ['env', [], { [envVarOf(bad.name)]: bad.value }],
      ['flag', [`${flagOf(bad.name)}=${bad.value}`], {}],
    ] as const) {
      const found = problems([...argv], env);
      t.equal(found.length, 1, `${source}: one problem`);
      const message = found[0]?.message ?? '';
      t.equal(found[0]?.setting, bad.name);
      t.match(message, bad.name, `${source}: names the setting`);
      t.match(message, flagOf(bad.name), `${source}: names the flag`);
      t.match(message, envVarOf(bad.name), `${source}: names the variable`);
      t.match(message, `"${bad.value}"`, `${source}: shows the bad value`);
      t.match(message, source === 'env' ? `from environment variable ${envVarOf(bad.name)}` : `from flag ${flagOf(bad.name)}`, `${source}: says where it came from`);
      t.match(message, bad.expected, `${source}: says what is expected`);
    }
  });
}

t.test('a secret is never echoed back', async (t) => {
  const found = problems([], { PMX_OPERATOR_TOKEN: 'short-secret' });
  t.equal(found.length, 1);
  t.match(found[0]?.message, /operatorToken.*the value from environment variable PMX_OPERATOR_TOKEN is not valid.*at least 16 characters/);
  t.notMatch(found[0]?.message, 'short-secret');
});

t.test('every problem is reported together', async (t) => {
  const result = parseConfig(['--http-port', 'x', '--bogus', 'extra'], { PMX_LOG_LEVEL: 'loud', PMX_CHAIN_ID: '0' });
  t.equal(result.kind, 'invalid');
  if (result.kind !== 'invalid') return;
  t.equal(result.problems.length, 5);
  const error = new ConfigError(result.problems);
  t.match(error.message, /^Invalid configuration \(5 problems\):/);
  for (const needle of ['httpPort', 'logLevel', 'chainId', 'Unknown flag --bogus', 'Unexpected argument "extra"', '--help']) t.match(error.message, needle);
  t.throws(() => loadConfig(['--http-port', 'x'], {}), ConfigError);
});

t.test('flag mistakes are explained', async (t) => {
  t.match(problems(['--http-prot', '1'])[0]?.message, /Unknown flag --http-prot\. Did you mean --http-port\?/);
  t.match(problems(['--http-port'])[0]?.message, /httpPort .*needs a value; expected an integer/);
  t.match(problems(['--http-port', '--no-rate-limit'])[0]?.message, /needs a value/);
  t.match(problems(['--http-port=1', '--http-port=2'])[0]?.message, /httpPort .*more than once/);
  t.match(problems(['--no-http-port'])[0]?.message, /Unknown flag --no-http-port/);
});

t.test('rules across settings: kafka needs brokers', async (t) => {
  const found = problems(['--log-backend=kafka']);
  t.equal(found[0]?.setting, 'kafkaBrokers');
  t.match(found[0]?.message, /--kafka-brokers \/ PMX_KAFKA_BROKERS.*required when --log-backend is kafka/);
  t.equal(ok(['--log-backend=kafka', '--kafka-brokers=127.0.0.1:9092']).kafkaBrokers[0], '127.0.0.1:9092');
});

t.test('unknown PMX_ variables are warned about, not fatal', async (t) => {
  const result = parseConfig([], { PMX_HTTP_PROT: '1', PMX_TEST_KAFKA: '1', HOME: '/root' });
  t.equal(result.kind, 'config');
  t.same(result.kind === 'config' ? result.warnings : [], ['Ignoring unknown environment variable PMX_HTTP_PROT. Did you mean PMX_HTTP_PORT?']);
});

t.test('--help lists every setting', async (t) => {
  t.same(parseConfig(['--http-port=x', '--help'], {}), { kind: 'help' });
  t.same(parseConfig(['-h'], {}), { kind: 'help' });
  const help = renderHelp();
  for (const name of SETTING_NAMES) {
    t.match(help, flagOf(name));
    t.match(help, envVarOf(name));
  }
});

t.test('CIDRs parse for the allowlist', async (t) => {
  t.same(parseCidr('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  t.same(parseCidr('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  t.equal(parseCidr('10.0.0.0/8/1'), undefined);
  t.equal(parseCidr('10.0.0.0/-1'), undefined);
});

t.test('the settings table has one row per setting, with flag, variable and default', async (t) => {
  const lines = renderSettingsTable().trimEnd().split('\n');
  t.equal(lines.length, SETTING_NAMES.length + 2);
  for (const name of SETTING_NAMES) {
    const row = lines.find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
    t.match(row, `\`${flagOf(name)}\``);
    t.match(row, `\`${envVarOf(name)}\``);
    t.match(row, SETTINGS[name].description.replace(/\|/g, '\\|'));
  }
});

t.test('npm run config:table prints the rendered table', async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/configTable.ts'], { cwd: root, encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  t.equal(run.stdout, renderSettingsTable());
});

// docs/configuration.md carries the table between <!-- config-table:start --> and <!-- config-table:end -->;
// it must equal the generated table (`npm run --silent config:table`).
const readmePath = `${root}docs/configuration.md`;
const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

t.test('the configuration table of docs/configuration.md equals the settings table', async (t) => {
  const start = readme.indexOf(START);
  t.ok(start >= 0, `docs/configuration.md has the ${START} marker`);
  const end = readme.indexOf(END, start);
  t.ok(end > start, `docs/configuration.md has the matching ${END} marker`);
  const inReadme = readme.slice(start + START.length, end).trim();
  t.equal(inReadme, renderSettingsTable().trim(), 'regenerate it with: npm run --silent config:table');
});

t.test("the projector's light-load spacing: 15 s by default, from --projection-light-load-ms or its variable", async (t) => {
  t.same(projectionLightLoadOf(ok([])), { intervalMs: 15_000, records: 1_000, maxRecords: 7_500 }, 'the default');
  t.same(projectionLightLoadOf(ok(['--projection-light-load-ms', '500'])), { intervalMs: 500, records: 1_000, maxRecords: 7_500 }, 'the flag');
  t.same(projectionLightLoadOf(ok([], { PMX_PROJECTION_LIGHT_LOAD_MS: '0' })), { intervalMs: 0, records: 1_000, maxRecords: 7_500 }, '0 from the environment: no light-load spacing');
  const refused = parseConfig(['--projection-light-load-ms=-1'], {});
  t.equal(refused.kind, 'invalid', 'a negative spacing is refused');
});
