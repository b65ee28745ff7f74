// The README's generated tables must equal what the code renders: the error table (from the reject
// catalogue). The configuration table is checked in config.test.ts.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { renderErrorTable } from '../docs/errorTable.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function between(start: string, end: string): string | undefined {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end, from);
  return from < 0 || to < 0 ? undefined : readme.slice(from + start.length, to).trim();
}

t.test('the README error table equals the reject catalogue', async (t) => {
  t.equal(between('<!-- error-table:start -->', '<!-- error-table:end -->'), renderErrorTable().trim(), 'regenerate it with: npm run --silent errors:table');
});

t.test('the README gives exactly two Quick start commands: npm start and npm test', async (t) => {
  const quick = between('<!-- quickstart:start -->', '<!-- quickstart:end -->') ?? '';
  const commands = quick.split('\n').filter((line) => /^\s*npm /.test(line)).map((line) => line.trim().split(/\s+#/)[0]?.trim());
  t.same(commands, ['npm start', 'npm test']);
});
