// Unit tests (nothing running): reading upstream values liberally, the stored form of upstream objects, page
// bodies, backoff, progress output, dump forms, the catalog:sync arguments, sort names.

import t from 'tap';
import { isoDateOf, jsonTextArrayOf, microsOf, stringArrayOf, idOf, numberOf, boolOf } from '../../catalog/upstream/gammaValues.js';
import { storedObject } from '../../catalog/upstream/gammaObjects.js';
import { backoffDelay, DEFAULT_RETRY, itemsOfBody, pageUrl } from '../../catalog/sync/upstreamClient.js';
import { terminalProgress } from '../../catalog/sync/syncProgress.js';
import { batchesOfDump, DumpFormatError } from '../../catalog/sync/dumpImport.js';
import { splitImportFlag, splitReconcileFlag } from '../../catalog/sync/syncArgs.js';
import { MARKET_SORT_COLUMNS, resolveOrder, sortNames } from '../../catalog/sortColumns.js';
import { liveBody, liveCapture } from './support/testCatalog.js';

t.test('values in every form the upstream sends', async (t) => {
  t.equal(microsOf('2026-10-02T09:43:25.57124Z'), Date.UTC(2026, 9, 2, 9, 43, 25) * 1000 + 571_240);
  t.equal(microsOf('2026-09-09 14:25:04+00'), Date.UTC(2026, 8, 9, 14, 25, 4) * 1000, 'legacy form');
  t.equal(microsOf('2023-03-22 19:17:35.835+00'), Date.UTC(2023, 2, 22, 19, 17, 35, 835) * 1000);
  t.equal(microsOf('2026-10-29T03:59:00-05:00'), Date.UTC(2026, 9, 29, 8, 59) * 1000, 'offsets');
  t.equal(microsOf('2026-10-29'), Date.UTC(2026, 9, 29) * 1000);
  t.equal(microsOf('soon'), undefined);
  t.equal(isoDateOf('2026-09-09 14:25:04+00'), '2026-09-09T14:25:04Z');
  t.equal(isoDateOf('2023-03-22 19:17:35.835+00'), '2023-03-22T19:17:35.835Z');
  t.equal(isoDateOf('2026-06-18T00:02:51.727205Z'), '2026-06-18T00:02:51.727205Z', 'ISO text is kept as sent');
  t.equal(jsonTextArrayOf(['Yes', 'No']), '["Yes", "No"]', 'a real array becomes the upstream\'s JSON text');
  t.equal(jsonTextArrayOf('["Yes", "No"]'), '["Yes", "No"]');
  t.same(stringArrayOf('["1", "0"]'), ['1', '0']);
  t.same(stringArrayOf(['a']), ['a']);
  t.equal(stringArrayOf('[broken'), undefined);
  t.equal(idOf(2589812), '2589812');
  t.equal(idOf('  '), undefined);
  t.equal(numberOf('820476.0282'), 820476.0282);
  t.equal(numberOf('x'), undefined);
  t.equal(boolOf('true'), true);
  t.equal(boolOf(1), undefined);
});

t.test('the stored form keeps every field, minus relations, with the spec\'s normalisations', async (t) => {
  const market = liveBody('MarketClosedSports');
  const stored = storedObject('market', market);
  t.ok(stored);
  t.same(Object.keys(stored ?? {}).sort(), Object.keys(market).filter((k) => k !== 'events').sort());
  t.equal(stored?.closedTime, '2026-09-09 14:25:04+00', 'only *Date, createdAt and updatedAt are rewritten');
  const optimized = (liveBody('SearchOptimized').events as { markets: unknown[] }[])[0]?.markets[0] as Record<string, unknown>;
  const fromSearch = storedObject('market', { ...optimized, id: 1, createdAt: '2026-05-28 05:29:05+00' });
  t.equal(fromSearch?.id, '1');
  t.equal(fromSearch?.outcomes, '["Yes", "No"]', 'arrays from the optimized search become JSON text');
  t.equal(fromSearch?.outcomePrices, '["0.105", "0.895"]');
  t.equal(fromSearch?.createdAt, '2026-05-28T05:29:05Z');
  const event = storedObject('event', liveBody('EventElection'));
  t.notOk(event !== undefined && ('markets' in event || 'tags' in event), 'relations live in link tables');
  t.ok(event !== undefined && 'eventMetadata' in event);
  t.equal(storedObject('series', liveBody('SeriesSummary'))?.$schema, undefined);
  t.equal(storedObject('tag', { label: 'no id' }), undefined);
});

t.test('page bodies: a bare array, or an object holding one', async (t) => {
  t.same(itemsOfBody([1], 'markets'), [1]);
  t.same(itemsOfBody({ markets: [1], next_cursor: 'x' }, 'markets'), [1], 'the keyset form');
  t.same(itemsOfBody({ data: [2] }, 'events'), [2]);
  t.equal(itemsOfBody({ error: 'x' }, 'events'), undefined);
  t.equal(itemsOfBody('x', 'events'), undefined);
  t.equal(pageUrl('http://h:1/gamma/', 'markets', { limit: '5', offset: '0' }), 'http://h:1/gamma/markets?limit=5&offset=0');
});

t.test('backoff doubles from the base delay, within ±20%, capped, and honours Retry-After', async (t) => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  for (let attempt = 1; attempt <= 6; attempt++) {
    const expected = Math.min(1000, 100 * 2 ** (attempt - 1));
    const delay = backoffDelay(policy, attempt, undefined);
    t.ok(delay >= Math.floor(expected * 0.8) && delay <= Math.min(1000, Math.ceil(expected * 1.2)), `attempt ${attempt}: ${delay} ms`);
  }
  t.equal(backoffDelay(policy, 1, 800), 800);
  t.equal(backoffDelay(policy, 1, 60_000), 1000, 'Retry-After is capped too');
});

t.test('progress: a line rewritten in place on a terminal, plain lines elsewhere', async (t) => {
  const written: string[] = [];
  const page = { stream: 'markets:open', phase: 'full' as const, offset: 500, pageItems: 500, runItems: 500, elapsedMs: 1000 };
  const tty = terminalProgress({ isTTY: true, write: (s: string) => written.push(s) });
  tty.page(page);
  tty.page({ ...page, offset: 1000, runItems: 1000 });
  t.match(written[0], /^\r\x1b\[2Kcatalog sync markets:open \(full\): 500 stored, offset 500, 500\/s$/);
  t.equal(written.length, 2, 'every page on a terminal');
  written.length = 0;
  let now = 0;
  const plain = terminalProgress({ isTTY: false, write: (s: string) => written.push(s) }, 2000, () => now);
  plain.page(page);
  now = 1000;
  plain.page(page);
  now = 2500;
  plain.page(page);
  plain.retry('markets:open', 1, 250, new Error('GET … answered 503'));
  plain.streamDone('markets:open', 1500, 3000);
  plain.runDone(1500, 3000);
  t.equal(written.length, 5, 'at most one page line per 2 s');
  t.ok(written.every((line) => line.endsWith('\n') && !line.includes('\r')));
  t.match(written[2], /attempt 1 failed \(GET … answered 503\); retrying in 250 ms/);
  t.match(written[4], /catalog sync: 1,500 objects in 3\.0 s \(500\/s\)/);
  const counts = { markets: 1, events: 0, series: 0, tags: 0 };
  plain.reconciled?.({ outcome: 'applied', startedAtMs: 0, durationMs: 2500, pages: 7, seen: counts, missing: counts, deleted: counts, message: 'deleted 1 market' });
  t.equal(written[5], 'catalog reconcile: applied, deleted 1 market (7 pages in 2.5 s)\n');
});

t.test('dump forms', async (t) => {
  const captures = ['Market', 'MarketClosedSports', 'EventElection', 'SeriesSummary', 'SearchOptimized'].map(liveCapture);
  const batches = batchesOfDump(captures);
  t.same(
    batches.map((b) => Object.keys(b.batch)),
    [['markets'], ['markets'], ['events'], ['series'], ['events', 'tags']],
    'the route of each capture names its resource',
  );
  t.ok(batches.every((b) => b.site === 'import'));
  const dump = batchesOfDump({ site: 'Partner-Site', markets: [{ id: 1 }], tags: [] });
  t.same(dump, [{ site: 'partner-site', batch: { markets: [{ id: 1 }] } }], 'the dump names its site; empty lists make no batch');
  t.throws(() => batchesOfDump({ foo: [] }), DumpFormatError);
  t.throws(() => batchesOfDump({ _captured: { route: 'GET /comments' }, body: [] }), DumpFormatError);
  t.throws(() => batchesOfDump(42), DumpFormatError);
});

t.test('catalog:sync arguments', async (t) => {
  t.same(splitImportFlag(['--import', 'dump.json', '--data-dir', 'x']), { importPath: 'dump.json', rest: ['--data-dir', 'x'] });
  t.same(splitImportFlag(['--import=dump.json']), { importPath: 'dump.json', rest: [] });
  t.match(splitImportFlag(['--import']), { problem: /needs the path/ });
  t.same(splitReconcileFlag(['--reconcile', '--data-dir', 'x']), { reconcile: true, rest: ['--data-dir', 'x'] });
  t.same(splitReconcileFlag(['--data-dir', 'x']), { reconcile: false, rest: ['--data-dir', 'x'] });
});

t.test('sort names', async (t) => {
  t.ok(sortNames(MARKET_SORT_COLUMNS).includes('volume24hr'));
  t.notOk(sortNames(MARKET_SORT_COLUMNS).includes('volume_24hr'), 'aliases are accepted, not listed');
  t.same(resolveOrder('volume24hr, volumeNum ,volume', MARKET_SORT_COLUMNS), { columns: ['volume_24hr', 'volume'] });
  t.same(resolveOrder('start_date', MARKET_SORT_COLUMNS), { columns: ['start_date'] });
  t.same(resolveOrder('volume;drop', MARKET_SORT_COLUMNS), { unknown: 'volume;drop' });
});
