// Renders the error tables of docs/errors.md from the code's two catalogues, so neither can drift from what the
// service answers: HTTP-level errors (api/http/apiErrors.ts, with the header edge's own answers from
// api/http/edge/edgeErrors.ts as rows marked "(edge)") and trading rejections (engine/rejectReasons.ts).
// test/readme.test.ts compares them. `npm run --silent errors:table` prints both.

import { API_ERRORS, EDGE_ERRORS } from '../api/http/apiErrors.js';
import { REJECT } from '../engine/rejectReasons.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderHttpErrorTable(): string {
  const rows = Object.entries(API_ERRORS).map(([code, spec]) => {
    const body = 'catalogType' in spec ? `\`{"type":"${spec.catalogType}","error":"${spec.message}"}\` on the catalog, else \`{"error":…}\`` : `\`{"error":"${spec.message}"}\``;
    return `| ${spec.status} | \`${code}\` | ${cell(body)} | ${cell(spec.when)} |`;
  });
  const edgeRows = Object.entries(EDGE_ERRORS).map(([code, spec]) => `| ${spec.status} | \`${code}\` (edge) | ${cell(`\`{"error":"${spec.message}"}\``)} | ${cell(spec.when)} |`);
  const note = 'Rows marked (edge) are answered by the header edge before the request reaches the server; the edge then closes the connection.\n';
  return ['| HTTP | Code | Body (`{…}` filled in) | When |', '|---|---|---|---|', ...rows, ...edgeRows].join('\n') + '\n\n' + note;
}

export function renderRejectTable(): string {
  const rows = Object.entries(REJECT).map(([code, { http, text }]) => `| \`${code}\` | ${http} | ${cell(text)} |`);
  return ['| Code | HTTP | Message (`{…}` filled in) |', '|---|---|---|', ...rows].join('\n') + '\n';
}

export function renderErrorTable(): string {
  return '### HTTP errors\n\n' + renderHttpErrorTable() + '\n### Trading rejections (engine)\n\n' + renderRejectTable();
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '');
if (invokedDirectly) process.stdout.write(renderErrorTable());
