// Loads the configuration from command-line flags and the environment (a flag wins over its variable),
// validates every setting and reports all problems together. The result is a frozen, typed Config.

import { SETTINGS, SETTING_NAMES, envVarOf, flagOf, type Config, type Setting, type SettingName } from './settings.js';
import { renderHelp } from './configDocs.js';

export type ValueSource = 'default' | 'env' | 'flag';

/** One thing wrong with the given settings; `message` is complete on its own. */
export interface ConfigProblem {
  readonly setting?: SettingName;
  readonly message: string;
}

export type LoadResult =
  | { readonly kind: 'config'; readonly config: Config; readonly sources: Readonly<Record<SettingName, ValueSource>>; readonly warnings: readonly string[] }
  | { readonly kind: 'help' }
  | { readonly kind: 'invalid'; readonly problems: readonly ConfigProblem[]; readonly warnings: readonly string[] };

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(formatProblems(problems));
    this.name = 'ConfigError';
  }
}

const BY_FLAG = new Map(SETTING_NAMES.map((name) => [flagOf(name), name]));
const BY_ENV = new Map(SETTING_NAMES.map((name) => [envVarOf(name), name]));

function label(name: SettingName): string {
  return `${name} (${flagOf(name)} / ${envVarOf(name)})`;
}

interface Raw {
  readonly text: string;
  readonly source: 'env' | 'flag';
  readonly origin: string;
}

/** Splits argv into raw flag values; problems for unknown, repeated or value-less flags and stray arguments. */
function readFlags(argv: readonly string[], problems: ConfigProblem[]): Map<SettingName, Raw> | 'help' {
  const raw = new Map<SettingName, Raw>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('--')) {
      problems.push({ message: `Unexpected argument "${arg}": settings are given as --name value or --name=value.` });
      continue;
    }
    const eq = arg.indexOf('=');
    let flag = eq === -1 ? arg : arg.slice(0, eq);
    let text: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    let name = BY_FLAG.get(flag);
    if (name === undefined && flag.startsWith('--no-') && text === undefined) {
      const positive = BY_FLAG.get('--' + flag.slice(5));
      if (positive !== undefined && SETTINGS[positive].kind.boolean) {
        name = positive;
        flag = '--' + flag.slice(5);
        text = 'false';
      }
    }
    if (name === undefined) {
      problems.push({ message: `Unknown flag ${flag}.${suggest(flag, [...BY_FLAG.keys()])} Run with --help to list every setting.` });
      continue;
    }
    const spec: Setting<unknown> = SETTINGS[name];
    if (text === undefined) {
      if (spec.kind.boolean) {
        // `--flag` alone is true; `--flag false` (as the help and the README write it) takes the next
        // argument when it is a boolean word, so a following flag or stray argument is never swallowed.
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('--') && spec.kind.parse(next).ok) {
          text = next;
          i += 1;
        } else {
          text = 'true';
        }
      } else {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--')) {
          problems.push({ setting: name, message: `${label(name)}: the flag needs a value; expected ${spec.kind.expected}.` });
          continue;
        }
        text = next;
        i += 1;
      }
    }
    if (raw.has(name)) {
      problems.push({ setting: name, message: `${label(name)}: the flag is given more than once.` });
      continue;
    }
    raw.set(name, { text, source: 'flag', origin: `flag ${flag}` });
  }
  return raw;
}

/** Parses and validates settings from `argv` (without node and script) and `env`. Never throws. */
export function parseConfig(argv: readonly string[] = process.argv.slice(2), env: Env = process.env): LoadResult {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const flags = readFlags(argv, problems);
  if (flags === 'help') return { kind: 'help' };

  for (const key of Object.keys(env)) {
    if (key.startsWith('PMX_') && !BY_ENV.has(key) && !key.startsWith('PMX_TEST_')) {
      warnings.push(`Ignoring unknown environment variable ${key}.${suggest(key, [...BY_ENV.keys()])}`);
    }
  }

  const values: Record<string, unknown> = {};
  const sources = {} as Record<SettingName, ValueSource>;
  for (const name of SETTING_NAMES) {
    const spec: Setting<unknown> = SETTINGS[name];
    const envText = env[envVarOf(name)];
    const raw: Raw | undefined = flags.get(name) ?? (envText === undefined ? undefined : { text: envText, source: 'env', origin: `environment variable ${envVarOf(name)}` });
    if (raw === undefined || (spec.optional && raw.text.trim() === '')) {
      values[name] = Array.isArray(spec.default) ? Object.freeze([...spec.default]) : spec.default;
      sources[name] = raw === undefined ? 'default' : raw.source;
      continue;
    }
    const parsed = spec.kind.parse(raw.text);
    if (parsed.ok) {
      values[name] = parsed.value;
      sources[name] = raw.source;
    } else {
      const shown = spec.secret ? 'the value' : `"${raw.text}"`;
      const why = parsed.problem === undefined ? '' : ` (${parsed.problem})`;
      problems.push({ setting: name, message: `${label(name)}: ${shown} from ${raw.origin} is not valid${why}; expected ${spec.kind.expected}.` });
    }
  }

  if (problems.length === 0) {
    for (const check of CROSS_CHECKS) {
      const problem = check(values as Config);
      if (problem !== undefined) problems.push(problem);
    }
  }
  if (problems.length > 0) return { kind: 'invalid', problems, warnings };
  return { kind: 'config', config: Object.freeze(values) as Config, sources: Object.freeze(sources), warnings };
}

/** Rules that involve more than one setting. */
const CROSS_CHECKS: ReadonlyArray<(c: Config) => ConfigProblem | undefined> = [
  (c) =>
    c.logBackend === 'kafka' && c.kafkaBrokers.length === 0
      ? { setting: 'kafkaBrokers', message: `${label('kafkaBrokers')}: required when ${flagOf('logBackend')} is kafka; expected ${SETTINGS.kafkaBrokers.kind.expected} with at least one broker.` }
      : undefined,
  (c) =>
    c.role !== 'all' && c.logBackend !== 'kafka'
      ? { setting: 'logBackend', message: `${label('logBackend')}: ${flagOf('role')} ${c.role} needs kafka (processes of separate roles share the log through Kafka).` }
      : undefined,
  (c) =>
    c.role !== 'all' && c.clickhouseMode !== 'server'
      ? { setting: 'clickhouseMode', message: `${label('clickhouseMode')}: ${flagOf('role')} ${c.role} needs server (processes of separate roles share one ClickHouse).` }
      : undefined,
  (c) =>
    c.role === 'api' && c.authSecret === undefined
      ? { setting: 'authSecret', message: `${label('authSecret')}: required with ${flagOf('role')} api (every API node must derive the same API key credentials).` }
      : undefined,
  (c) =>
    c.clickhouseHttpPort !== undefined && c.clickhouseMode === 'server'
      ? { setting: 'clickhouseHttpPort', message: `${label('clickhouseHttpPort')}: serves the embedded ClickHouse, so it is refused with ${flagOf('clickhouseMode')} server (analysts use the server).` }
      : undefined,
  (c) =>
    c.clickhouseHttpPort !== undefined && c.analystPassword === undefined && c.clickhouseServicePassword === undefined
      ? { setting: 'clickhouseHttpPort', message: `${label('clickhouseHttpPort')}: needs at least one user: set ${flagOf('analystPassword')} or ${flagOf('clickhouseServicePassword')}.` }
      : undefined,
  (c) =>
    c.analystUser === c.clickhouseServiceUser
      ? { setting: 'clickhouseServiceUser', message: `${label('clickhouseServiceUser')}: must differ from ${flagOf('analystUser')}.` }
      : undefined,
];

/** Like parseConfig, but throws ConfigError on invalid settings (and on --help, which has no config). */
export function loadConfig(argv: readonly string[] = process.argv.slice(2), env: Env = process.env): Config {
  const result = parseConfig(argv, env);
  if (result.kind === 'config') return result.config;
  if (result.kind === 'help') throw new ConfigError([{ message: 'Help was requested; there is no configuration to load.' }]);
  throw new ConfigError(result.problems);
}

/** For entry points: prints help and exits 0 on --help, prints every problem and exits 2 on bad settings. */
export function loadConfigOrExit(argv: readonly string[] = process.argv.slice(2), env: Env = process.env): Config {
  const result = parseConfig(argv, env);
  if (result.kind === 'help') {
    process.stdout.write(renderHelp());
    process.exit(0);
  }
  for (const warning of result.warnings) process.stderr.write(`config warning: ${warning}\n`);
  if (result.kind === 'invalid') {
    process.stderr.write(formatProblems(result.problems) + '\n');
    process.exit(2);
  }
  return result.config;
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  const head = `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):`;
  return [head, ...problems.map((p) => `  - ${p.message}`), 'Run with --help to list every setting, its flag, environment variable and default.'].join('\n');
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

function suggest(given: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of known) {
    const d = distance(given.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best === undefined ? '' : ` Did you mean ${best}?`;
}
