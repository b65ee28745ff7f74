// Runs one HTTP request's statement on the embedded ClickHouse (chDB) in a chDB session of its own, opened
// on the service's data path and closed after the request. A session per request costs about 1 ms and
// keeps requests apart: chDB applies settings to a whole session (they cannot leak from one request to the
// next), and a session that has failed a query can hand the next query a stale result, so none is reused.
// chDB runs queries off the JavaScript thread (queryAsync), so a long analyst query never blocks the engine.
//
// The analyst's session: the URL's output-format settings, then the analyst's limits, then readonly = 1
// (which the session cannot undo, not even with a query's own SETTINGS), then any other URL setting (which
// readonly refuses unless it asks for the value already in force, as a ClickHouse server does), then the
// statement, normalised and checked by analystGate.ts. The service user's session takes every URL setting
// and runs the statement as sent (INSERT data included).

import { Session } from 'chdb';
import { checkAnalystStatement, parseExplainAst } from './analystGate.js';
import { fromEngineError, refuse } from './chErrors.js';
import { chdbBindings, substituteParameters } from './queryParameters.js';

export interface AnalystLimits {
  readonly maxExecutionSec: number;
  readonly maxMemoryBytes: number;
  readonly maxResultRows: number;
  readonly maxResultBytes: number;
  readonly maxThreads: number;
  /** os_thread_priority of the query's threads (chDB puts them back to 0 after the query). */
  readonly nice: number;
}

export interface StatementRequest {
  readonly user: string;
  /** The statement with, for an INSERT, its data after a newline (as a ClickHouse server joins them). */
  readonly query: string;
  readonly params: Readonly<Record<string, string>>;
  readonly settings: Readonly<Record<string, string>>;
  /** The format of a result whose statement names none. */
  readonly defaultFormat: string;
}

export interface StatementResult {
  readonly body: Buffer;
  /** The result's format: the statement's own FORMAT clause, or the default format. */
  readonly format: string;
  readonly rowsRead: number;
  readonly bytesRead: number;
  readonly elapsedSec: number;
}

/**
 * Settings an analyst may set per request: they shape the output, and none reaches a resource or a limit.
 * Not those that name a file (output_format_schema writes one; format_schema and format_template_* read one).
 */
const ANALYST_SETTING = /^(output_format_\w+|format_(csv|tsv|custom)_\w+|date_time_output_format|session_timezone|extremes|join_use_nulls)$/;
const FILE_SETTING = /schema|template|path|file/i;

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Setting values are set as SQL string literals; these characters need no escaping in one. */
const SETTING_VALUE = /^[\w .:,+\-/@=*]*$/;

function setStatement(settings: ReadonlyArray<readonly [string, string]>): string | undefined {
  if (settings.length === 0) return undefined;
  for (const [name, value] of settings) {
    if (!SETTING_NAME.test(name)) throw refuse.badArguments(`Invalid setting name ${JSON.stringify(name)}`);
    if (!SETTING_VALUE.test(value)) throw refuse.badArguments(`The value of the setting ${name} has characters this endpoint does not take (quotes, backslashes, control characters)`);
  }
  return 'SET ' + settings.map(([name, value]) => `${name} = '${value}'`).join(', ');
}

/** The statement's own FORMAT clause in formatQuery()'s text (top-level clauses start a line there). */
function formatClause(formatted: string): string | undefined {
  return /^FORMAT (\S+)$/m.exec(formatted)?.[1];
}

/** ClickHouse's own normal form of one statement; more than one statement is a syntax error. */
async function formatQuery(session: Session, sql: string): Promise<string> {
  if (sql.includes('\0')) throw refuse.badArguments('The query contains a NUL byte');
  const literal = `'${sql.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const result = await session.queryAsync(`SELECT formatQuery(${literal})`, { format: 'JSONCompact' });
  return result.json<{ data: [[string]] }>().data[0]?.[0] ?? '';
}

export class ChdbStatements {
  constructor(
    /** The chDB data path of the service's own client (storage/clickhouse.ts chdbPathOf()). */
    private readonly path: string,
    private readonly database: string,
  ) {}

  async runAsAnalyst(request: StatementRequest, limits: AnalystLimits): Promise<StatementResult> {
    const entries = Object.entries(request.settings);
    const isShaping = (name: string): boolean => ANALYST_SETTING.test(name) && !FILE_SETTING.test(name);
    const shaping = setStatement(entries.filter(([name]) => isShaping(name)));
    const others = setStatement(entries.filter(([name]) => !isShaping(name)));
    return this.withSession(async (session) => {
      if (shaping !== undefined) await session.queryAsync(shaping);
      await session.queryAsync(
        `SET max_execution_time = ${limits.maxExecutionSec}, max_memory_usage = ${limits.maxMemoryBytes}, max_result_rows = ${limits.maxResultRows}, ` +
          `max_result_bytes = ${limits.maxResultBytes}, result_overflow_mode = 'throw', max_threads = ${limits.maxThreads}, os_thread_priority = ${limits.nice}, ` +
          `readonly = 1; USE ${this.database}`,
      );
      if (others !== undefined) await session.queryAsync(others);
      // Normalised once to find the placeholders outside quotes, and again after they are filled in.
      const withPlaceholders = await formatQuery(session, request.query);
      const filled = substituteParameters(withPlaceholders, request.params);
      const formatted = filled === withPlaceholders ? filled : await formatQuery(session, filled);
      const ast = await session.queryAsync(`EXPLAIN AST ${formatted}`, { format: 'TSVRaw' });
      checkAnalystStatement(formatted, parseExplainAst(ast.text()), { user: request.user, database: this.database });
      const format = formatClause(formatted) ?? request.defaultFormat;
      const result = await session.queryAsync(formatted, { format });
      // chDB does not always hold a result to max_result_bytes (a few large rows pass), so the serialised
      // result is held to it here too, with the error a server gives.
      const bytes = result.bytes();
      if (bytes.length > limits.maxResultBytes) {
        throw refuse.resultTooLarge(limits.maxResultBytes, bytes.length);
      }
      return { body: Buffer.from(bytes), format, rowsRead: result.rowsRead, bytesRead: result.bytesRead, elapsedSec: result.elapsed };
    });
  }

  async runAsService(request: StatementRequest, database: string): Promise<StatementResult> {
    const set = setStatement(Object.entries(request.settings));
    return this.withSession(async (session) => {
      await session.queryAsync(`${set === undefined ? '' : set + '; '}USE ${database}`);
      const format = /^\s*INSERT\b/i.test(request.query) ? request.defaultFormat : (/\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(request.query)?.[1] ?? request.defaultFormat);
      const bindings = chdbBindings(request.query, request.params);
      const result = Object.keys(bindings).length === 0 ? await session.queryAsync(request.query, { format: request.defaultFormat }) : await session.queryBindAsync(request.query, bindings, { format: request.defaultFormat });
      return { body: Buffer.from(result.bytes()), format, rowsRead: result.rowsRead, bytesRead: result.bytesRead, elapsedSec: result.elapsed };
    });
  }

  private async withSession<T>(work: (session: Session) => Promise<T>): Promise<T> {
    const session = new Session(this.path);
    try {
      return await work(session);
    } catch (error) {
      throw fromEngineError(error);
    } finally {
      session.close();
    }
  }
}
