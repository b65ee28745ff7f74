// ClickHouse clients for scripted failures inside a commit: their command() runs each statement of a
// multi-statement call (storage/bulkInsert.ts, insertTogether()) as its own call, in order. chDB itself runs
// a call's statements in order and stops at the first that fails (test/projections/insertTogether.test.ts),
// so these reproduce a commit stopped between any two of its statements.

import type { ClickHouseClient } from '@clickhouse/client';
import { STATEMENT_SEPARATOR } from '../../storage/bulkInsert.js';

/**
 * `each` is given every statement and runs it (or not, or around other commands) with `run`; throwing fails the
 * call. With a ClickHouse server, whose inserts go through insert() one per call, each insert() is a statement
 * too, given as `INSERT INTO <table> (<columns>) FORMAT <format>`.
 */
export function eachStatement(ch: ClickHouseClient, each: (statement: string, run: () => Promise<void>) => Promise<void>): ClickHouseClient {
  return new Proxy(ch, {
    get(client, key, receiver) {
      if (key === 'insert') {
        return async (params: Parameters<ClickHouseClient['insert']>[0]) => {
          let result: Awaited<ReturnType<ClickHouseClient['insert']>> | undefined;
          const columns = Array.isArray(params.columns) ? ` (${(params.columns as string[]).join(', ')})` : '';
          await each(`INSERT INTO ${params.table}${columns} FORMAT ${params.format ?? 'JSONCompactEachRow'}`, async () => {
            result = await client.insert(params);
          });
          return result ?? { executed: false, query_id: '', response_headers: {}, summary: undefined };
        };
      }
      if (key !== 'command') return Reflect.get(client, key, receiver);
      return async (params: Parameters<ClickHouseClient['command']>[0]) => {
        let result: Awaited<ReturnType<ClickHouseClient['command']>> = { query_id: '' } as Awaited<ReturnType<ClickHouseClient['command']>>;
        for (const statement of params.query.split(STATEMENT_SEPARATOR)) {
          await each(statement, async () => {
            result = await client.command({ ...params, query: statement });
          });
        }
        return result;
      };
    },
  });
}

/** `after` is called once each statement has landed; it throws to fail the call right there. */
export function statementByStatement(ch: ClickHouseClient, after: (statement: string) => void): ClickHouseClient {
  return eachStatement(ch, async (statement, run) => {
    await run();
    after(statement);
  });
}
