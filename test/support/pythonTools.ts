// The Python interpreter of the repo's Python tools venv (scripts/python/venv.sh: schemathesis,
// clickhouse-connect). scripts/test.sh fills the venv once per run and exports PMX_PYTHON; a test file run on
// its own fills it here. Tests never skip when Python is missing: venv.sh's message fails them.

import { execFileSync } from 'node:child_process';

let cached: string | undefined;

/** Absolute path of the venv's python, installing the requirements first when needed. */
export function pythonTools(): string {
  if (cached !== undefined) return cached;
  const fromEnv = process.env.PMX_PYTHON;
  if (fromEnv !== undefined && fromEnv !== '') return (cached = fromEnv);
  const out = execFileSync('bash', [new URL('../../scripts/python/venv.sh', import.meta.url).pathname], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = out.trim().split('\n');
  return (cached = lines[lines.length - 1] as string);
}
