// Documentation generated from the settings table: the --help text and the README's configuration table.
// The README table is kept equal to renderSettingsTable() by test/config.test.ts.

import { SETTINGS, SETTING_NAMES, defaultText, envVarOf, flagOf, type Setting } from './settings.js';

const code = (s: string): string => '`' + s + '`';

function describe(spec: Setting<unknown>): string {
  return `${spec.description} Expected: ${spec.kind.expected}.`;
}

function defaultCell(name: (typeof SETTING_NAMES)[number]): string {
  const spec: Setting<unknown> = SETTINGS[name];
  if (spec.optional) return 'unset';
  if (Array.isArray(spec.default) && spec.default.length === 0) return 'none';
  const text = defaultText(name);
  return text === '' ? 'empty' : code(text);
}

/** The configuration table for README.md, in Markdown, ending with a newline. */
export function renderSettingsTable(): string {
  const escape = (s: string): string => s.replace(/\|/g, '\\|');
  const rows = SETTING_NAMES.map((name) => {
    const spec: Setting<unknown> = SETTINGS[name];
    return `| ${code(name)} | ${code(flagOf(name))} | ${code(envVarOf(name))} | ${escape(defaultCell(name))} | ${escape(describe(spec))} |`;
  });
  return ['| Setting | Flag | Environment variable | Default | Description |', '|---|---|---|---|---|', ...rows].join('\n') + '\n';
}

function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/** The --help text, ending with a newline. */
export function renderHelp(): string {
  const out = [
    'Usage: npm start -- [--setting value | --setting=value | --bool-setting | --no-bool-setting] ...',
    '',
    'Every setting comes from its flag or its PMX_* environment variable; a flag wins over its variable.',
    'Problems are reported together at start, and the process exits with status 2.',
    '',
  ];
  for (const name of SETTING_NAMES) {
    const spec: Setting<unknown> = SETTINGS[name];
    const placeholder = spec.kind.placeholder === '' ? '' : ` ${spec.kind.placeholder}`;
    out.push(`  ${flagOf(name)}${placeholder}   (${envVarOf(name)})`);
    const defaultNote = `Default: ${defaultCell(name).replace(/`/g, '')}.`;
    out.push(...wrap(`${describe(spec)} ${defaultNote}`, 100, '      '));
  }
  out.push('', '  --help, -h   Print this help and exit.');
  return out.join('\n') + '\n';
}
