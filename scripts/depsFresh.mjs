// Exits 0 when node_modules matches package-lock.json, else prints why and exits 1. Plain JavaScript with
// node built-ins only: it runs before any dependency is installed. It compares npm's own record of what it
// installed (node_modules/.package-lock.json) with the lockfile, entry by entry; optional packages for other
// platforms are absent by design. It also checks that the lockfile lists package.json's dependencies, so an
// edited package.json leads to `npm install`.
import { readFileSync } from 'node:fs';

function read(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function stale(reason) {
  process.stdout.write(reason + '\n');
  process.exit(1);
}

const manifest = read('package.json');
const lock = read('package-lock.json');
const installed = read('node_modules/.package-lock.json');
if (manifest === undefined || lock?.packages === undefined) stale('package.json or package-lock.json is missing or unreadable');
if (installed?.packages === undefined) stale('node_modules is missing or was not installed by npm');

const root = lock.packages[''] ?? {};
for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
  const want = manifest[field] ?? {};
  const have = root[field] ?? {};
  for (const [name, range] of Object.entries(want)) {
    if (have[name] !== range) stale(`package.json ${field}.${name} (${range}) differs from package-lock.json`);
  }
  for (const name of Object.keys(have)) if (!(name in want)) stale(`package-lock.json lists ${name}, package.json does not`);
}

for (const [path, entry] of Object.entries(lock.packages)) {
  if (path === '') continue;
  const got = installed.packages[path];
  if (got === undefined) {
    if (entry.optional || entry.devOptional) continue;
    stale(`${path} is not installed`);
  }
  if (got.version !== entry.version) stale(`${path} is ${got.version}, package-lock.json wants ${entry.version}`);
}
for (const path of Object.keys(installed.packages)) {
  if (!(path in lock.packages)) stale(`${path} is installed but not in package-lock.json`);
}
