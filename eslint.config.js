// ESLint flat config. The one rule that matters most: engine/ is pure and deterministic, so nothing
// under it may read the clock, random numbers or the process environment; time, ids and sequence
// numbers arrive on commands. See engine/README.md.
import tseslint from 'typescript-eslint';

const nondeterminism = [
  { selector: "MemberExpression[object.name='Date'][property.name='now']", message: 'engine/ must not read the clock: time arrives on the command.' },
  { selector: "NewExpression[callee.name='Date']", message: 'engine/ must not read the clock: time arrives on the command.' },
  { selector: "CallExpression[callee.name='Date']", message: 'engine/ must not read the clock.' },
  { selector: "MemberExpression[object.name='performance']", message: 'engine/ must not read the clock.' },
  { selector: "MemberExpression[object.name='Math'][property.name='random']", message: 'engine/ must not use randomness.' },
  { selector: "MemberExpression[object.name='process']", message: 'engine/ must not read the process (environment, clock, argv).' },
  { selector: "MemberExpression[property.name=/^(randomUUID|randomBytes|randomInt|getRandomValues|hrtime)$/]", message: 'engine/ must not use randomness or the high-resolution clock.' },
  { selector: "Identifier[name=/^(setTimeout|setInterval|setImmediate|queueMicrotask)$/]", message: 'engine/ must not schedule work: it is driven by commands only.' },
  { selector: "CallExpression[callee.name=/^random/]", message: 'engine/ must not use randomness.' },
];

const randomFromCrypto = ['randomUUID', 'randomBytes', 'randomInt', 'randomFill', 'randomFillSync', 'getRandomValues', 'webcrypto', 'generateKey', 'generateKeyPair', 'generateKeyPairSync'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.kafka/**', 'coverage/**', '.tap/**', '.screenshots/**', '.bench-baseline/**', 'native/secp256k1/target/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The market page runs in a browser (ui/tsconfig.json types it with the DOM library, not Node's): no Node
    // built-ins or globals there, and it reaches the service only through the public HTTP and WS APIs.
    files: ['ui/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname', '__filename', 'global'],
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'ui/ runs in a browser.' }, { group: ['../*'], message: 'ui/ is bundled on its own: it uses the service only through its public API.' }] }],
    },
  },
  {
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...nondeterminism],
      'no-restricted-globals': ['error', 'process', 'performance', 'crypto', 'fetch', 'setTimeout', 'setInterval'],
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'crypto', importNames: randomFromCrypto, message: 'engine/ must not use randomness (hashing is fine).' },
          { name: 'node:crypto', importNames: randomFromCrypto, message: 'engine/ must not use randomness (hashing is fine).' },
          'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'net', 'node:net', 'http', 'node:http', 'child_process', 'node:child_process', 'os', 'node:os', 'worker_threads', 'node:worker_threads'],
        patterns: [{ group: ['../api/*', '../projections/*', '../log/*', '../host/*', '../config/*'], message: 'engine/ depends on nothing outside itself.' }],
      }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
