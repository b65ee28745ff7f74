// The Python interpreter of the repo's Python tools venvs (scripts/python/venv.sh): .venv-py (schemathesis,
// clickhouse-connect, py-clob-client-v2) and .venv-py3.12 (polymarket-apis, which needs Python 3.12).
// scripts/test.sh fills them once per run and exports PMX_PYTHON and PMX_PYTHON_3_12; a test file run on its
// own fills them here. Tests never skip when Python is missing: venv.sh's message fails them.

import { execFileSync } from 'node:child_process';

const cached = new Map<string, string>();

/** Absolute path of the venv's python, installing the requirements first when needed. */
export function pythonTools(version?: '3.12'): string {
  const key = version ?? '';
  const known = cached.get(key);
  if (known !== undefined) return known;
  const fromEnv = process.env[version === undefined ? 'PMX_PYTHON' : `PMX_PYTHON_${version.replace('.', '_')}`];
  if (fromEnv !== undefined && fromEnv !== '') {
    cached.set(key, fromEnv);
    return fromEnv;
  }
  const script = new URL('../../scripts/python/venv.sh', import.meta.url).pathname;
  const out = execFileSync('bash', [script, ...(version === undefined ? [] : [version])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = out.trim().split('\n');
  const python = lines[lines.length - 1] as string;
  cached.set(key, python);
  return python;
}
