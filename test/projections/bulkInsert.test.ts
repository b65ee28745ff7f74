// storage/bulkInsert.ts and projections/tsv.ts: rows written as TabSeparated text land as written, through
// the spool file (embedded) and through client.insert() (the server's path, here over chDB), special
// characters, empty trailing fields, nulls and arrays included; a repeated token lands once.

import t from 'tap';
import type { ClickHouseClient } from '@clickhouse/client';
import { insertText } from '../../storage/bulkInsert.js';
import { TextChunks } from '../../storage/textChunks.js';
import { nullableInt, text, textArray, time, minute, bool } from '../../projections/tsv.js';
import { Projector } from '../../projections/projector.js';
import { FEE_ACCOUNT, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';

/** The client as a server deployment sees it: no spool directory, so insertText takes client.insert(). */
function withoutSpool(ch: ClickHouseClient): ClickHouseClient {
  const spool = Symbol.for('pmx.clickhouse.spoolDir');
  return new Proxy(ch, { get: (client, key, receiver) => (key === spool ? undefined : Reflect.get(client, key, receiver)) });
}

const NASTY = ['plain', '', 'tab\there', 'new\nline', 'back\\slash', "quo'te", 'cr\rhere', '\\N', 'ünïcödé €', 'semi;', 'trailing\t'];

t.test('values round-trip, both paths, and a repeated token lands once', async (t) => {
  const { ch, db } = await freshDatabase();
  await ch.command({
    query: `CREATE TABLE ${db}.rt (k UInt32, s String, n Nullable(Int64), a Array(String), b Bool, ts DateTime64(3, 'UTC'), m DateTime('UTC'), e String)
            ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100`,
  });
  const ms = Date.UTC(2024, 1, 29, 23, 59, 59, 7);
  const body = new TextChunks();
  NASTY.forEach((s, k) => body.append(`${k}\t${text(s)}\t${nullableInt(k % 2 === 0 ? null : -k)}\t${textArray([s, 'x', s])}\t${bool(k % 3 === 0)}\t${time(ms + k)}\t${minute(ms)}\t\n`));
  const columns = ['k', 's', 'n', 'a', 'b', 'ts', 'm', 'e'];
  for (const [path, client] of [['spool file', ch], ['client.insert', withoutSpool(ch)]] as const) {
    await ch.command({ query: `TRUNCATE TABLE ${db}.rt` });
    await insertText(client, { table: `${db}.rt`, columns, body: body.chunks(), token: `rt-${path}` });
    await insertText(client, { table: `${db}.rt`, columns, body: body.chunks(), token: `rt-${path}` });
    const result = await ch.query({
      query: `SELECT k, s, n, a, b, toUnixTimestamp64Milli(ts) AS ts, toUnixTimestamp(m) AS m, e FROM ${db}.rt ORDER BY k`,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    const rows = (await result.json()) as { k: number; s: string; n: number | null; a: string[]; b: boolean; ts: number; m: number; e: string }[];
    t.equal(rows.length, NASTY.length, `${path}: one row per line, the repeated insert dropped`);
    rows.forEach((r, k) => {
      const s = NASTY[k] as string;
      t.same(r, { k, s, n: k % 2 === 0 ? null : -k, a: [s, 'x', s], b: k % 3 === 0, ts: ms + k, m: Math.floor(ms / 60_000) * 60, e: '' }, `${path}: ${JSON.stringify(s)}`);
    });
  }
});

t.test('the projector writes the same tables through either path', async (t) => {
  const session = await loggedSession([...sessionFor(303, 300), ...crossingCommands(100)]);
  const spooled = await freshDatabase();
  const a = new Projector(spooled.ch, spooled.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 70 });
  await a.start();
  await a.catchUp();
  const plain = await freshDatabase();
  const b = new Projector(withoutSpool(plain.ch), plain.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 70 });
  await b.start();
  await b.catchUp();
  t.same(await dumpTables(plain.ch, plain.db), await dumpTables(spooled.ch, spooled.db));
});
