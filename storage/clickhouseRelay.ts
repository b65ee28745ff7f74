// ClickHouse for a worker thread, through the thread that holds the client: the worker gets an object with the
// calls the projector makes (command, query with JSONEachRow, insert), each sent as a message and run on the
// holder's real client, its answer or error sent back. The process keeps one ClickHouse client, one chDB
// session in embedded mode (chDB binds one data path per process, and a chDB connection torn down with a worker
// thread leaves the process's other connections hanging), and one place where faults are injected in tests.
//
// What a call costs the holder's thread: one message in, the client call it would have made itself, one out.
// The projector makes a handful per commit (every few hundred ms), not per record. Bulk rows do not travel as
// messages in embedded mode: the worker writes them to spool files (storage/bulkInsert.ts) under a directory of
// its own, and the statement that reads them is the message.

import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { spoolDirOf, useSpoolDir } from './bulkInsert.js';

type Settings = Record<string, string | number | boolean>;

/** A call from the worker. */
export type RelayCall =
  | { readonly op: 'command'; readonly query: string; readonly params?: Record<string, unknown>; readonly settings?: Settings }
  | { readonly op: 'query'; readonly query: string; readonly params?: Record<string, unknown>; readonly settings?: Settings }
  | { readonly op: 'insertRows'; readonly table: string; readonly rows: readonly unknown[]; readonly format: string; readonly settings?: Settings }
  | { readonly op: 'insertBytes'; readonly table: string; readonly columns?: readonly string[]; readonly bytes: Uint8Array; readonly format: string; readonly settings?: Settings };

export interface RelayRequest {
  readonly kind: 'clickhouse';
  readonly id: number;
  readonly call: RelayCall;
}

export interface RelayReply {
  readonly kind: 'clickhouse';
  readonly id: number;
  /** A query's rows (JSONEachRow); absent for the other calls. */
  readonly rows?: unknown[];
  readonly error?: string;
}

/** Runs a worker's call on the real client; never throws (an error is the reply's). */
export async function serveRelayCall(client: ClickHouseClient, request: RelayRequest): Promise<RelayReply> {
  const { id, call } = request;
  try {
    switch (call.op) {
      case 'command':
        await client.command({ query: call.query, query_params: call.params, clickhouse_settings: call.settings });
        return { kind: 'clickhouse', id };
      case 'query': {
        const result = await client.query({ query: call.query, format: 'JSONEachRow', query_params: call.params, clickhouse_settings: call.settings });
        return { kind: 'clickhouse', id, rows: (await result.json()) as unknown[] };
      }
      case 'insertRows':
        await client.insert({ table: call.table, values: [...call.rows], format: call.format as 'JSONEachRow', clickhouse_settings: call.settings });
        return { kind: 'clickhouse', id };
      case 'insertBytes':
        await client.insert({
          table: call.table,
          columns: call.columns === undefined ? undefined : ([...call.columns] as [string, ...string[]]),
          values: Readable.from([Buffer.from(call.bytes.buffer, call.bytes.byteOffset, call.bytes.byteLength)], { objectMode: false }),
          format: call.format as 'TabSeparated',
          clickhouse_settings: call.settings,
        });
        return { kind: 'clickhouse', id };
    }
  } catch (error) {
    return { kind: 'clickhouse', id, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Where the worker's relayed client spools its bulk rows: beside the holder's (embedded), or none (server). */
export function relaySpoolDir(client: ClickHouseClient, worker: string): string | undefined {
  const spool = spoolDirOf(client);
  return spool === undefined ? undefined : `${spool}/${worker}`;
}

interface Parameters {
  readonly query: string;
  readonly query_params?: Record<string, unknown>;
  readonly clickhouse_settings?: Settings;
  readonly format?: string;
}

interface InsertParameters {
  readonly table: string;
  readonly values: readonly unknown[] | AsyncIterable<Uint8Array | string>;
  readonly format: string;
  readonly columns?: readonly string[];
  readonly clickhouse_settings?: Settings;
}

/**
 * The worker's side: a client whose calls `send` delivers to the holder, answered through the returned
 * `settle` (the worker's handler of RelayReply messages). Only what the projector calls is there; anything else
 * is a programming error and throws. `spoolDir` (relaySpoolDir()) makes its bulk inserts go through files.
 */
export function relayedClickHouse(send: (request: RelayRequest) => void, spoolDir: string | undefined): { client: ClickHouseClient; settle(reply: RelayReply): void } {
  const waiting = new Map<number, { resolve(rows: unknown[] | undefined): void; reject(error: Error): void }>();
  let nextId = 1;
  const call = (c: RelayCall): Promise<unknown[] | undefined> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      send({ kind: 'clickhouse', id, call: c });
    });
  const relayed = {
    async command(p: Parameters) {
      await call({ op: 'command', query: p.query, params: p.query_params, settings: p.clickhouse_settings });
      return { query_id: '', response_headers: {}, summary: undefined };
    },
    async query(p: Parameters) {
      if (p.format !== 'JSONEachRow') throw new Error(`a relayed ClickHouse query answers JSONEachRow only, not ${p.format}`);
      const rows = (await call({ op: 'query', query: p.query, params: p.query_params, settings: p.clickhouse_settings })) ?? [];
      return { json: async () => rows };
    },
    async insert(p: InsertParameters) {
      if (Array.isArray(p.values)) {
        await call({ op: 'insertRows', table: p.table, rows: p.values, format: p.format, settings: p.clickhouse_settings });
      } else {
        const chunks: Buffer[] = [];
        for await (const chunk of p.values as AsyncIterable<Uint8Array | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        await call({ op: 'insertBytes', table: p.table, columns: p.columns, bytes: Buffer.concat(chunks), format: p.format, settings: p.clickhouse_settings });
      }
      return { executed: true, query_id: '', response_headers: {} };
    },
    async close() {
      for (const w of waiting.values()) w.reject(new Error('the relayed ClickHouse client is closed'));
      waiting.clear();
    },
  };
  // The projector's code takes a ClickHouseClient; this object has exactly the calls it makes.
  const client = relayed as unknown as ClickHouseClient;
  if (spoolDir !== undefined) useSpoolDir(client, spoolDir);
  return {
    client,
    settle(reply: RelayReply): void {
      const w = waiting.get(reply.id);
      if (w === undefined) return;
      waiting.delete(reply.id);
      if (reply.error !== undefined) w.reject(new Error(reply.error));
      else w.resolve(reply.rows);
    },
  };
}
