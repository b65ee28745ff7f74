// Renders the README's error table from the one catalogue (engine/rejectReasons.ts), so the two cannot
// drift: test/readme.test.ts compares them. `npm run --silent errors:table` prints it.

import { REJECT } from '../engine/rejectReasons.js';

export function renderErrorTable(): string {
  const rows = Object.entries(REJECT).map(([code, { http, text }]) => `| \`${code}\` | ${http} | ${text.replace(/\|/g, '\\|')} |`);
  return ['| Code | HTTP | Message (`{…}` filled in) |', '|---|---|---|', ...rows].join('\n') + '\n';
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '');
if (invokedDirectly) process.stdout.write(renderErrorTable());
