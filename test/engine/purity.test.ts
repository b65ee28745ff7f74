// The engine must stay deterministic: the ESLint rules scoped to engine/ refuse the clock, randomness, the
// environment, timers and I/O modules there, and the real engine sources pass them.

import t from 'tap';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function problems(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.message);
}

t.test('clock, randomness, environment, timers and I/O are refused inside engine/', async (t) => {
  const cases: [string, string][] = [
    ['Date.now()', 'export const x = Date.now();'],
    ['new Date()', 'export const x = new Date();'],
    ['performance.now()', 'export const x = performance.now();'],
    ['Math.random()', 'export const x = Math.random();'],
    ['process.env', 'export const x = process.env.HOME;'],
    ['crypto.randomUUID()', "import { randomUUID } from 'node:crypto';\nexport const x = randomUUID();"],
    ['setTimeout', 'setTimeout(() => 1, 5);'],
    ['node:fs', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;"],
  ];
  for (const [label, code] of cases) {
    const found = await problems(code, 'engine/sample.ts');
    t.ok(found.length > 0, `${label} is refused (${found[0] ?? 'no message'})`);
  }
});

t.test('the same code is allowed outside engine/', async (t) => {
  t.same(await problems('export const x = Date.now() + Math.random();', 'api/sample.ts'), []);
});

t.test('the engine sources themselves pass', async (t) => {
  const results = await eslint.lintFiles(['engine/**/*.ts']);
  const messages = results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`));
  t.same(messages, [], 'no lint findings in engine/');
  t.ok(results.length > 10, `${results.length} engine files linted`);
});
