// storage/bulkInsert.ts, projections/tsv.ts and storage/nativeBlock.ts: rows written as TabSeparated text land
// as written, through the spool file (embedded) and through client.insert() (the server's path, here over
// chDB), special characters, empty trailing fields, nulls and arrays included; a repeated token lands once; the
// same values written as a Native block land the same as their text.

import t from 'tap';
import type { ClickHouseClient } from '@clickhouse/client';
import { insertRows, insertsTogether } from '../../storage/bulkInsert.js';
import { NativeBlock } from '../../storage/nativeBlock.js';
import { TextChunks } from '../../storage/textChunks.js';
import { nullableInt, text, textArray, time, minute, bool } from '../../projections/tsv.js';
import { Projector } from '../../projections/projector.js';
import { FEE_ACCOUNT, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';

/** The client as a server deployment sees it: no spool directory, so insertRows takes client.insert(). */
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
    await insertRows(client, { table: `${db}.rt`, columns, body: body.chunks(), token: `rt-${path}` });
    await insertRows(client, { table: `${db}.rt`, columns, body: body.chunks(), token: `rt-${path}` });
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

t.test('a Native block lands the same values as their TabSeparated text', async (t) => {
  const { ch, db } = await freshDatabase();
  if (!insertsTogether(ch)) return t.pass('a server takes TabSeparated only');
  const columns = ['k', 's', 'n', 'a', 'b', 'ts', 'm', 'p', 'd', 'u'];
  const create = (table: string): string =>
    `CREATE TABLE ${db}.${table} (k UInt32, s String, n Nullable(Int64), a Array(String), b Bool, ts DateTime64(3, 'UTC'), m DateTime('UTC'),
       p Array(Tuple(price Int64, size Int64)), d Date, u UInt8) ENGINE = MergeTree ORDER BY k`;
  await ch.command({ query: create('as_text') });
  await ch.command({ query: create('as_native') });
  const ms = Date.UTC(2024, 1, 29, 23, 59, 59, 7);
  // Past 127 UTF-8 bytes a string's length takes two bytes, past 16,383 three.
  const values = [...NASTY, 'é'.repeat(64), 'x'.repeat(16_384), '0x' + 'ab'.repeat(32)];
  const lines = new TextChunks();
  const block = new NativeBlock([['k', 'int'], ['s', 'string'], ['n', 'nullInt'], ['a', 'strings'], ['b', 'bool'], ['ts', 'time'], ['m', 'minute'], ['p', 'pairs'], ['d', 'string'], ['u', 'int']]);
  values.forEach((s, k) => {
    const n = k % 3 === 0 ? null : k % 3 === 1 ? -(2 ** 53 - 1) + k : 2 ** 40 + k;
    const pairs: [number, number][] = Array.from({ length: k % 4 }, (_, i) => [-i * 1_000_003, 2 ** 50 + i]);
    const day = `2026-0${1 + (k % 9)}-1${k % 10}`;
    lines.append(`${k}\t${text(s)}\t${nullableInt(n)}\t${textArray(k % 2 === 0 ? [] : [s, '', s])}\t${bool(k % 2 === 0)}\t${time(ms + k)}\t${minute(ms + k * 60_000)}\t[${pairs.map(([a, b]) => `(${a},${b})`).join(',')}]\t${day}\t${k % 256}\n`);
    block.int(k).string(s).nullInt(n).strings(k % 2 === 0 ? [] : [s, '', s]).bool(k % 2 === 0).time(ms + k).minute(ms + k * 60_000).pairs(pairs).string(day).int(k % 256).end();
  });
  await insertRows(ch, { table: `${db}.as_text`, columns, body: lines.chunks(), token: 'as-text' });
  await insertRows(ch, { table: `${db}.as_native`, columns, body: block.chunks(), format: 'Native', token: 'as-native' });
  const dump = async (table: string): Promise<unknown[]> =>
    (await ch.query({ query: `SELECT * FROM ${db}.${table} ORDER BY k`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } })).json();
  const asText = await dump('as_text');
  t.equal(asText.length, values.length, 'every row landed');
  t.same(await dump('as_native'), asText, 'the same rows either way');
});

t.test('a Native block refuses a row that does not fit its columns', async (t) => {
  const block = (): NativeBlock => new NativeBlock([['k', 'int'], ['s', 'string']]);
  t.throws(() => block().string('x'), /column k is int, written as string/);
  t.throws(() => block().int(2 ** 53), /not a safe integer/);
  t.throws(() => block().int(1.5), /not a safe integer/);
  t.throws(() => block().int(1).end(), /a row ended after 1 of 2 columns/);
  t.throws(() => block().int(1).string('a').string('b'), /has no column 3/);
  const unfinished = block();
  unfinished.int(1).string('a').end();
  unfinished.int(2);
  t.throws(() => unfinished.chunks(), /unfinished/);
  t.same(block().chunks(), [], 'no rows: no bytes');
});
