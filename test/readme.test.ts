// Generated tables must equal what the code renders: the error table of docs/errors.md (from the two error
// catalogues). The configuration table is checked in config.test.ts; the README's tour runs in
// readmeTour.test.ts.

import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parseConfig } from '../config/index.js';
import { renderErrorTable } from '../docs/errorTable.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const errorsDoc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');

function between(start: string, end: string, text = readme): string | undefined {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  return from < 0 || to < 0 ? undefined : text.slice(from + start.length, to).trim();
}

t.test('the error table of docs/errors.md equals the error catalogues', async (t) => {
  t.equal(between('<!-- error-table:start -->', '<!-- error-table:end -->', errorsDoc), renderErrorTable().trim(), 'regenerate it with: npm run --silent errors:table');
});

t.test('the README stays a five-minute read: at most 250 lines, no history of how it was built', async (t) => {
  const lines = readme.split('\n');
  t.ok(lines.length <= 250, `${lines.length} lines`);
  t.notMatch(readme, /\b[Ss]ession \d|\b20\d\d-\d\d-\d\d\b/, 'no sessions or dated runs');
});

t.test('every relative link of the README points at a file of the repository', async (t) => {
  for (const [, target] of readme.matchAll(/\]\(([^)#\s]+)\)/g)) {
    if (target === undefined || /^[a-z]+:/.test(target)) continue;
    t.ok(existsSync(new URL(`../${target}`, import.meta.url)), `${target} exists`);
  }
});

t.test('the README gives exactly two Quick start commands: npm start and npm test', async (t) => {
  const quick = between('<!-- quickstart:start -->', '<!-- quickstart:end -->') ?? '';
  const commands = quick.split('\n').filter((line) => /^\s*npm /.test(line)).map((line) => line.trim().split(/\s+#/)[0]?.trim());
  t.same(commands, ['npm start', 'npm test']);
});

const ROLE_NEEDS = ['--log-backend', 'kafka', '--kafka-brokers', '127.0.0.1:9092', '--clickhouse-mode', 'server', '--auth-secret', 'a-secret-of-at-least-thirty-two-characters'];

t.test('every npm start command and every "--flag value" the documents show is a valid configuration', async (t) => {
  const docs = ['README.md', ...readdirSync(new URL('../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'api/trading/README.md', 'api/operator/README.md', 'api/clob/README.md', 'catalog/README.md'];
  let commands = 0;
  for (const doc of docs) {
    const text = readFileSync(new URL(`../${doc}`, import.meta.url), 'utf8');
    for (const [, args] of text.matchAll(/npm start -- ([^`\n#]+)/g)) {
      // Shell words: quoted strings are one argument.
      const argv = [...(args ?? '').trim().matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
      const result = parseConfig(argv, {});
      t.not(result.kind, 'invalid', `${doc}: npm start -- ${argv.join(' ')}${result.kind === 'invalid' ? ` (${result.problems.map((p) => p.message).join('; ')})` : ''}`);
      commands += 1;
    }
    // Flags written with a value in prose (`--header-edge false`, `--http-port 9090`); a role other than
    // `all` is checked with the settings every such role needs (Kafka, a ClickHouse server, the auth secret).
    for (const [, flag, value] of text.matchAll(/`(--[a-z][a-z0-9-]+) ([^`\s<…]+)`/g)) {
      const needs = flag === '--role' && value !== 'all' ? ROLE_NEEDS : [];
      const result = parseConfig([...needs, flag as string, value as string], {});
      t.not(result.kind, 'invalid', `${doc}: ${flag} ${value}`);
      commands += 1;
    }
  }
  t.ok(commands >= 3, `${commands} commands checked`);
});
