// What the analyst may run, decided on ClickHouse's own parse of the statement (never on a parse of ours):
// the statement is first normalised by ClickHouse's formatQuery() (which refuses more than one statement),
// and it is that normalised text which is checked and then run, so what runs is what was checked. The
// check reads the statement's syntax tree as `EXPLAIN AST` prints it.
//
// The analyst's session is also `readonly = 1`, which refuses writes, DDL, settings changes and the table
// functions that read files or the network. This gate closes what readonly leaves open and narrows the
// rest to the exchange database:
// - kinds of statement: SELECT (with UNION, INTERSECT, EXCEPT), SHOW TABLES/DATABASES/COLUMNS/FUNCTIONS/
//   CREATE TABLE, DESCRIBE, EXISTS, EXPLAIN of one of those; anything else is READONLY;
// - tables: the exchange database, INFORMATION_SCHEMA, and the system tables that clients and BI tools read
//   to list databases, tables, columns, functions, settings and formats; anything else is ACCESS_DENIED;
// - table functions: only those that make rows from their arguments (numbers, values, view, ...);
// - functions that read a file or another table by name: `file()` (which readonly allows and which reads
//   any file the process can), `joinGet`, `dictGet` and the rest of the dictionary family;
// - INTO OUTFILE and FROM INFILE, which chDB carries out itself whatever the session's settings.

import { refuse } from './chErrors.js';

/** One node of `EXPLAIN AST` output: its line without the indentation, and its children. */
export interface AstNode {
  readonly kind: string;
  /** The rest of the line after the kind: a name, an alias, "(children N)". */
  readonly detail: string;
  readonly children: AstNode[];
}

/** `EXPLAIN AST` text (one node per line, one space of indentation per level) as a tree. */
export function parseExplainAst(text: string): AstNode {
  const root: AstNode = { kind: '', detail: '', children: [] };
  const stack: { node: AstNode; depth: number }[] = [{ node: root, depth: -1 }];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const depth = line.length - line.trimStart().length;
    const body = line.trim();
    const space = body.indexOf(' ');
    const node: AstNode = { kind: space < 0 ? body : body.slice(0, space), detail: space < 0 ? '' : body.slice(space + 1), children: [] };
    while ((stack.at(-1)?.depth ?? -1) >= depth) stack.pop();
    (stack.at(-1)?.node ?? root).children.push(node);
    stack.push({ node, depth });
  }
  const top = root.children[0];
  if (root.children.length !== 1 || top === undefined) throw refuse.badArguments('the statement could not be read as one statement');
  return top;
}

const STATEMENT_KINDS = new Set([
  'SelectWithUnionQuery',
  'SelectIntersectExceptQuery',
  'ShowTables',
  'ShowColumns',
  'ShowFunctions',
  'ShowCreateTableQuery',
  'DescribeQuery',
  'ExistsTableQuery',
  'Explain',
]);

/** Table functions that only make rows from their arguments. */
const TABLE_FUNCTIONS = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'generaterandom', 'generate_series', 'generateseries', 'values', 'view', 'null', 'format']);

/** Functions that read a file, or a table or dictionary named in a string (so past the table check). */
const DENIED_FUNCTION = /^(file|joinget.*|dict.*|catboostevaluate)$/;

/** The system tables that ClickHouse clients and BI tools read to find their way. */
export const SYSTEM_TABLES: ReadonlySet<string> = new Set([
  'one',
  'numbers',
  'numbers_mt',
  'zeros',
  'zeros_mt',
  'databases',
  'tables',
  'columns',
  'functions',
  'table_functions',
  'settings',
  'formats',
  'data_type_families',
  'table_engines',
  'build_options',
  'time_zones',
  'collations',
  'keywords',
  'aggregate_function_combinators',
  'contributors',
  'parts',
  'dictionaries',
]);

const INFORMATION_SCHEMA = new Set(['INFORMATION_SCHEMA', 'information_schema']);

export interface GateRules {
  /** The analyst's user name, for the messages. */
  readonly user: string;
  /** The one database of data the analyst reads. */
  readonly database: string;
}

/** Refuses (throws a ClickHouseHttpError) what the analyst may not run; `formatted` is formatQuery()'s text. */
export function checkAnalystStatement(formatted: string, ast: AstNode, rules: GateRules): void {
  if (/\bINTO\s+OUTFILE\b/i.test(formatted)) throw refuse.accessDenied(rules.user, 'INTO OUTFILE writes a file on the host; read the result from the response instead');
  if (/\bFROM\s+INFILE\b/i.test(formatted)) throw refuse.accessDenied(rules.user, 'FROM INFILE reads a file on the host');
  checkStatementKind(ast, rules);
  if (ast.kind === 'ShowColumns') checkShowColumns(formatted, rules);
  if (ast.kind === 'ShowTables') checkShowTables(formatted, rules);
  walk(ast, undefined, rules);
}

function checkStatementKind(node: AstNode, rules: GateRules): void {
  if (!STATEMENT_KINDS.has(node.kind)) throw refuse.readonly(`${rules.user}: ${node.kind}`);
  if (node.kind === 'Explain') {
    const inner = node.children[0];
    if (inner === undefined) throw refuse.readonly(`${rules.user}: EXPLAIN without a statement`);
    checkStatementKind(inner, rules);
  }
}

function walk(node: AstNode, parent: AstNode | undefined, rules: GateRules): void {
  switch (node.kind) {
    case 'TableIdentifier':
      checkTable(firstWord(node.detail), rules);
      break;
    case 'Function': {
      const name = firstWord(node.detail).toLowerCase();
      if (parent?.kind === 'TableExpression' && !TABLE_FUNCTIONS.has(name)) {
        throw refuse.accessDenied(rules.user, `The table function ${firstWord(node.detail)}() reads outside the exchange database`);
      }
      if (DENIED_FUNCTION.test(name)) throw refuse.accessDenied(rules.user, `The function ${firstWord(node.detail)}() reads outside the exchange database`);
      // `x IN db.table`: the table is an Identifier among the function's arguments.
      if (/^(global)?(not)?(null)?in$/.test(name)) {
        for (const arg of node.children[0]?.children ?? []) if (arg.kind === 'Identifier' && firstWord(arg.detail).includes('.')) checkTable(firstWord(arg.detail), rules);
      }
      break;
    }
    case 'ExistsTableQuery':
    case 'ShowCreateTableQuery': {
      // "ShowCreateTableQuery db table" or "ShowCreateTableQuery  table".
      const [db, table] = node.detail.replace(/\(children \d+\)/, '').split(' ');
      if (db !== undefined && db !== '' && table !== undefined && table !== '') checkTable(`${db}.${table}`, rules);
      break;
    }
  }
  for (const child of node.children) walk(child, node, rules);
}

function firstWord(detail: string): string {
  return detail.split(' ')[0] ?? '';
}

function checkTable(name: string, rules: GateRules): void {
  const dot = name.indexOf('.');
  if (dot < 0) return; // unqualified: the session's database is the exchange database
  const db = name.slice(0, dot);
  const table = name.slice(dot + 1);
  if (db === 'system') {
    if (!SYSTEM_TABLES.has(table)) throw refuse.accessDenied(rules.user, `To execute this query, it's necessary to have the grant SELECT ON system.${table}; the analyst reads only the system tables that clients read to find their way`);
    return;
  }
  checkDatabase(db, rules);
}

function checkDatabase(db: string, rules: GateRules): void {
  if (db === rules.database || db === 'system' || INFORMATION_SCHEMA.has(db)) return;
  throw refuse.accessDenied(rules.user, `To execute this query, it's necessary to have the grant SELECT ON ${db}.*; the analyst reads only the ${rules.database} database`);
}

function checkShowColumns(formatted: string, rules: GateRules): void {
  const match = /^SHOW (?:FULL |EXTENDED )*COLUMNS (?:FROM|IN) (\S+)(?: (?:FROM|IN) (\S+))?/i.exec(formatted);
  if (match === null) throw refuse.readonly(`${rules.user}: SHOW COLUMNS`);
  const [, table, db] = match;
  if (db !== undefined) checkDatabase(db.replace(/^`(.*)`$/, '$1'), rules);
  else if (table !== undefined) checkTable(table, rules);
}

/** SHOW TABLES (DICTIONARIES, ...) FROM db: the AST does not tell the database from a FORMAT name, the text does. */
function checkShowTables(formatted: string, rules: GateRules): void {
  const db = /^SHOW\b[^\n]*?\b(?:FROM|IN)\s+(\S+)/i.exec(formatted)?.[1];
  if (db !== undefined) checkDatabase(db.replace(/^`(.*)`$/, '$1'), rules);
}
