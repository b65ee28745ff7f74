// Query parameters as ClickHouse's HTTP interface takes them: `param_<name>=<value>` fills `{name:Type}`,
// the value in ClickHouse's Escaped text format (backslash escapes, as TSV), parsed as Type. A server
// unescapes the value's text for a string type; for other types (numbers, dates, arrays, ...) the type's own
// text parser reads it as it is.
//
// chDB binds parameters too (queryBindAsync), but chDB runs every parameter-bound query of the process one at
// a time (one global chain, since the bound values live in shared engine state), and the service's own reads
// are parameter-bound: an analyst's minute-long query with parameters would hold all of them up. So the
// analyst's parameters are substituted into the statement's text as typed literals (`_CAST('text', 'Type')`,
// what a server makes of them too) before the statement is normalised and checked, and the analyst's
// statement runs unbound. The service user's statements are bound by chDB, as the service's own are.

import { refuse } from './chErrors.js';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g;

/** Types whose Escaped text is unescaped before parsing (a server reads them with string rules). */
function isStringType(type: string): boolean {
  const inner = type.trim().replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2').replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2');
  return /^(String|FixedString\(\d+\)|Enum(8|16)?\(.*\)|UUID)$/i.test(inner.trim());
}

const UNESCAPE: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0' };

/** ClickHouse's Escaped text format to the text it stands for. */
export function unescapeText(text: string): string {
  return text.replace(/\\(.)/gs, (_, c: string) => UNESCAPE[c] ?? c);
}

function literal(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The value of one placeholder as chDB's binding expects it (chDB escapes a string value itself). */
function bindValue(type: string, value: string): string {
  return isStringType(type) ? unescapeText(value) : value;
}

/** The parameters of `sql` as chDB's queryBindAsync takes them. */
export function chdbBindings(sql: string, params: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, type] of sql.matchAll(PLACEHOLDER)) {
    if (name === undefined || type === undefined) continue;
    const value = params[name];
    if (value !== undefined) out[name] = bindValue(type, value);
  }
  return out;
}

function typedLiteral(type: string, value: string): string {
  if (type.trim() === 'Identifier') {
    // A compound name (db.table) is several identifiers, as on a server.
    return unescapeText(value)
      .split('.')
      .map((part) => '`' + part.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`')
      .join('.');
  }
  if (value === '\\N' && /^(Nullable|LowCardinality\(Nullable)/.test(type.trim())) return `_CAST(NULL, ${literal(type.trim())})`;
  return `_CAST(${literal(isStringType(type) ? unescapeText(value) : value)}, ${literal(type.trim())})`;
}

/**
 * `sql` (formatQuery()'s text: no comments, string literals in single quotes) with every `{name:Type}`
 * outside quotes replaced by its value as a typed literal. A placeholder without a value is an error,
 * as on a server.
 */
export function substituteParameters(sql: string, params: Readonly<Record<string, string>>): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (c === "'" || c === '`' || c === '"') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== c) j += sql[j] === '\\' ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '{') {
      const match = /^\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/.exec(sql.slice(i));
      if (match !== null) {
        const [whole, name, type] = match as unknown as [string, string, string];
        const value = params[name];
        if (value === undefined) throw refuse.unknownParameter(name);
        out += typedLiteral(type, value);
        i += whole.length;
        continue;
      }
    }
    out += c;
    i += 1;
  }
  return out;
}
