// GET /events (every filter and sort), /events/{id}, /events/slug/{slug}, GET /series, GET /tags over the
// demo catalog in a real chDB, with the list and single forms of spec 2.5/2.6 and the error rows.

import t from 'tap';
import { DEMO_CREATORS } from '../../catalog/demo/demoDefinitions.js';
import { EVENT_SORT_COLUMNS, sortNames } from '../../catalog/queries.js';
import { importParsedDump } from '../../catalog/sync/dumpImport.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';
import { caller, demoCatalog, ids, listOf, range, type Call } from './support/handlerCalls.js';
import { freshCatalog } from './support/testCatalog.js';

let call: Call;
t.before(async () => {
  ({ call } = await demoCatalog());
});

const events = (query: string): Promise<GammaObject[]> => listOf(call('/events', query));
const badRequest = (error: string) => ({ status: 400, body: { type: 'bad request', error } });

t.test('GET /events: list form with tags, without markets, series, eventMetadata', async (t) => {
  const all = await events('');
  t.same(ids(all), range(90001, 90012));
  for (const e of all) {
    for (const key of ['id', 'ticker', 'slug', 'title', 'description', 'resolutionSource', 'image', 'icon', 'startDate', 'creationDate', 'endDate', 'createdAt', 'updatedAt']) t.type(e[key], 'string', key);
    for (const key of ['active', 'closed', 'archived']) t.type(e[key], 'boolean', key);
    t.ok(Array.isArray(e.tags));
    for (const key of ['markets', 'series', 'eventMetadata']) t.notOk(key in e, `no ${key} in the list form`);
  }
  t.match(all[0]?.tags, [{ id: '903', slug: 'economy', label: 'Economy', requiresTranslation: false }, { id: '904', slug: 'fed' }]);
});

t.test('GET /events filters, paging and sorting', async (t) => {
  t.same(ids(await events('limit=2&offset=1')), ['90002', '90003']);
  t.same(ids(await events('closed=true')), ['90002', '90006', '90008']);
  t.equal((await events('closed=false')).length, 9);
  t.equal((await events('active=true')).length, 12);
  t.same(await events('archived=true'), []);
  t.same(ids(await events('tag=nba')), ['90004', '90005', '90006']);
  t.same(ids(await events('tag_slug=nba')), ['90004', '90005', '90006']);
  t.same(ids(await events('tag_id=906')), ['90004', '90005', '90006']);
  t.same(ids(await events('tag_id=906&closed=false')), ['90004', '90005']);
  t.same(ids(await events('series_slug=fomc')), ['90001', '90002']);
  t.same(ids(await events('slug=will-it-rain-in-london-on-december-24-2026')), ['90009']);
  t.same(ids(await events(`creator=${DEMO_CREATORS.sports}`)), range(90004, 90008));
  t.equal((await events('creator=demo')).length, 12);
  const byVolume = await events('order=volume&ascending=false');
  t.ok(byVolume.every((e, i) => i === 0 || (byVolume[i - 1]?.volume as number) >= (e.volume as number)), 'volume descending');
  const byStart = await events('order=startDate&ascending=true');
  t.ok(byStart.every((e, i) => i === 0 || Date.parse(byStart[i - 1]?.startDate as string) <= Date.parse(e.startDate as string)), 'startDate ascending');
  for (const name of sortNames(EVENT_SORT_COLUMNS)) t.equal((await call('/events', `order=${name}&limit=1`)).status, 200, `order=${name} is allowed`);
  t.match(await call('/events', 'order=question'), badRequest('order: unknown field question'));
  t.match(await call('/events', 'limit=x'), badRequest('limit must be an integer'));
  t.match(await call('/events', 'archived=nope'), badRequest('archived must be true or false'));
  t.match(await call('/events', 'tag_id=x'), badRequest('tag_id must be an integer'));
});

t.test('GET /events/{id} and /events/slug/{slug}: single form', async (t) => {
  const r = await call('/events/{id}', '', { id: '90001' });
  t.equal(r.status, 200);
  const event = r.body as GammaObject;
  t.same((event.tags as GammaObject[]).map((x) => x.slug), ['economy', 'fed']);
  t.same(ids(event.markets as GammaObject[]), range(900001, 900004));
  t.notOk((event.markets as GammaObject[]).some((m) => 'events' in m), 'markets without events');
  t.match(event.series, [{ id: '9001', slug: 'fomc', recurrence: 'monthly' }]);
  t.notOk((event.series as GammaObject[]).some((s) => 'events' in s), 'series without events');
  t.same(event.eventMetadata, { demo: true });
  t.same((await call('/events/slug/{slug}', '', { slug: 'fed-decision-in-december-2026' })).body, event);

  t.same(await call('/events/{id}', '', { id: '12345' }), { status: 404, body: { type: 'not found error', error: 'id not found' } });
  t.same(await call('/events/{id}', '', { id: 'fed' }), badRequest('id must be an integer'));
  t.same(await call('/events/slug/{slug}', '', { slug: 'nope' }), { status: 404, body: { type: 'not found error', error: 'slug not found' } });
  t.equal((await call('/events/{id}', `creator=${DEMO_CREATORS.sports}`, { id: '90001' })).status, 404, 'not visible under another creator');
  t.equal((await call('/events/slug/{slug}', `creator=${DEMO_CREATORS.sports}`, { slug: 'fed-decision-in-december-2026' })).status, 404);
});

t.test('an event lists only the markets visible under creator', async (t) => {
  const catalog = await freshCatalog();
  const market = (id: string, creator: string) => ({ id, question: `q${id}`, slug: `m${id}`, submitted_by: creator, updatedAt: '2026-01-01T00:00:00Z', events: [{ id: '7' }] });
  await importParsedDump(catalog, { markets: [market('1', '0xaaa'), market('2', '0xbbb')], events: [{ id: '7', slug: 'mixed', title: 'Mixed', updatedAt: '2026-01-01T00:00:00Z' }] });
  const scoped = caller(catalog);
  const scopedEvent = (await scoped('/events/{id}', 'creator=0xAAA', { id: '7' })).body as GammaObject;
  t.same(ids(scopedEvent.markets as GammaObject[]), ['1'], 'only the creator\'s market (creator is case-insensitive)');
  t.same(ids(((await scoped('/events/{id}', '', { id: '7' })).body as GammaObject).markets as GammaObject[]), ['1', '2']);
  t.same(ids(await listOf(scoped('/events', 'creator=import'))), ['7'], 'the import site');
});

t.test('GET /series: events in the in-series form; limit 1..100, offset >= 0', async (t) => {
  const series = await listOf(call('/series', ''));
  t.same(ids(series), ['9001', '9002', '9003']);
  const fomc = series[0] as GammaObject;
  for (const key of ['id', 'ticker', 'slug', 'title', 'seriesType', 'recurrence', 'image', 'icon', 'createdAt', 'updatedAt']) t.type(fomc[key], 'string', key);
  t.same(ids(fomc.events as GammaObject[]), ['90001', '90002']);
  for (const e of fomc.events as GammaObject[]) for (const key of ['tags', 'markets', 'series', 'eventMetadata']) t.notOk(key in e, `no ${key}`);
  t.same(ids(await listOf(call('/series', 'limit=1&offset=1'))), ['9002']);
  t.equal((await listOf(call('/series', 'limit=100'))).length, 3);
  t.same(await call('/series', 'limit=0'), badRequest('limit must be an integer of at least 1'));
  t.same(await call('/series', 'limit=101'), badRequest('limit must be an integer from 1 to 100'));
  t.same(await call('/series', 'offset=-1'), badRequest('offset must be an integer of at least 0'));
  const sports = await listOf(call('/series', `creator=${DEMO_CREATORS.sports}`));
  t.same(ids(sports), ['9002', '9003']);
  const markets = await listOf(call('/series', `creator=${DEMO_CREATORS.markets}`));
  t.same(ids(markets[0]?.events as GammaObject[]), ['90001', '90002']);
});

t.test('GET /tags', async (t) => {
  const tags = await listOf(call('/tags', ''));
  t.same(ids(tags), range(901, 914));
  for (const tag of tags) {
    for (const key of ['id', 'label', 'slug', 'createdAt', 'updatedAt']) t.type(tag[key], 'string');
    t.type(tag.requiresTranslation, 'boolean');
  }
  t.same(ids(await listOf(call('/tags', 'limit=3&offset=2'))), ['903', '904', '905']);
  t.same(ids(await listOf(call('/tags', `creator=${DEMO_CREATORS.sports}`))), ['905', '906', '907', '908']);
  t.same(await call('/tags', 'limit=-5'), badRequest('limit must be an integer of at least 0'));
});
