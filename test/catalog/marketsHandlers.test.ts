// GET /markets (every filter, alias and sort), GET /markets/{id}, GET /markets/slug/{slug} over the demo
// catalog in a real chDB, with the spec's shapes and error rows.

import t from 'tap';
import { DEMO_CREATORS } from '../../catalog/demo/demoDefinitions.js';
import { demoConditionId } from '../../catalog/demo/buildDemoCatalog.js';
import { MARKET_SORT_COLUMNS, sortNames } from '../../catalog/queries.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';
import { demoCatalog, ids, listOf, range, type Call } from './support/handlerCalls.js';

let call: Call;
t.before(async () => {
  ({ call } = await demoCatalog());
});

const RAIN = '900030';
const RAIN_SLUG = 'will-it-rain-in-london-on-december-24-2026';
const CLOSED = ['900005', '900006', '900007', '900008', '900021', '900022', '900023', '900027', '900028', '900029'];
const NBA = range(900015, 900023);
const list = (query: string): Promise<GammaObject[]> => listOf(call('/markets', query));
const badRequest = (error: string) => ({ status: 400, body: { type: 'bad request', error } });

t.test('list form: spec 2.4 fields, JSON-encoded string arrays, event summaries with id/ticker/slug/title', async (t) => {
  const markets = await list('');
  t.same(ids(markets), range(900001, 900020), 'default: 20 markets by id');
  for (const m of markets) {
    for (const key of ['id', 'question', 'conditionId', 'slug', 'resolutionSource', 'startDate', 'endDate', 'image', 'icon', 'description', 'outcomes', 'clobTokenIds', 'createdAt', 'updatedAt', 'questionID']) {
      t.type(m[key], 'string', `${key} is text`);
    }
    for (const key of ['active', 'closed', 'archived']) t.type(m[key], 'boolean');
    t.same(JSON.parse(m.clobTokenIds as string).length, 2);
    t.ok(Array.isArray(JSON.parse(m.outcomes as string)));
    t.same(Object.keys((m.events as GammaObject[])[0] ?? {}).sort(), ['id', 'slug', 'ticker', 'title']);
  }
  t.equal(markets[0]?.outcomes, '["Yes", "No"]');
});

t.test('limit and offset', async (t) => {
  t.same(ids(await list('limit=5&offset=5')), range(900006, 900010));
  t.same((await list('limit=1000')).length, 40, 'above 500 the limit is clamped, not refused');
  t.same(await list('limit=0'), []);
  t.same(await list('offset=40'), []);
  t.match(await call('/markets', 'limit=-1'), badRequest('limit must be an integer of at least 0'));
  t.match(await call('/markets', 'limit=ten'), badRequest('limit must be an integer'));
  t.match(await call('/markets', 'offset=-3'), badRequest('offset must be an integer of at least 0'));
});

t.test('active, closed, archived', async (t) => {
  t.equal((await list('active=true&limit=100')).length, 40);
  t.same(await list('active=false'), []);
  t.same(ids(await list('closed=true')), CLOSED);
  t.equal((await list('closed=false&limit=100')).length, 30);
  t.match(await call('/markets', 'closed=TRUE'), badRequest('closed must be true or false'), 'booleans are exactly true or false');
  t.match(await call('/markets', 'closed=1'), badRequest('closed must be true or false'));
  t.equal((await list('archived=false&limit=100')).length, 40);
  t.same(await list('archived=true'), []);
  t.same(ids(await list('closed=')), range(900001, 900020), 'an empty value is no filter');
  t.match(await call('/markets', 'closed=maybe'), badRequest('closed must be true or false'));
});

t.test('tag, tag_slug, tag_id, event_id, event_slug, eventSlug, conditionId, condition_id, slug', async (t) => {
  t.same(ids(await list('tag=nba')), NBA, 'tag is the tag slug');
  t.same(ids(await list('tag_slug=nba')), NBA);
  t.same(ids(await list('tag_id=906')), NBA);
  t.same(ids(await list('tag=nba&tag_id=901')), [], 'tag filters combine');
  t.same(ids(await list('tag_slug=nba,weather')), [...NBA, RAIN], 'a comma-separated list is any of them');
  t.match(await call('/markets', 'tag_id=nba'), badRequest('tag_id must be an integer'));
  t.same(ids(await list('event_id=90009')), [RAIN]);
  t.same(ids(await list('event_id=90009,90011')), [RAIN, '900036']);
  t.match(await call('/markets', 'event_id=rain'), badRequest('event_id must be an integer'));
  t.same(ids(await list(`event_slug=${RAIN_SLUG}`)), [RAIN]);
  t.same(ids(await list(`eventSlug=${RAIN_SLUG}`)), [RAIN], 'alias eventSlug');
  const cid = demoConditionId(RAIN_SLUG);
  t.same(ids(await list(`conditionId=${cid}`)), [RAIN]);
  t.same(ids(await list(`condition_id=${cid}`)), [RAIN], 'alias condition_id');
  t.same(ids(await list(`conditionId=${cid.toUpperCase().replace('0X', '0x')}`)), [RAIN], 'hex in any case');
  t.same(ids(await list(`slug=${RAIN_SLUG}&slug=starship-reaches-orbit-in-2026`)), [RAIN, '900036'], 'repeated keys');
  t.same(ids(await list('slug=nope')), []);
  t.same(ids(await list('tag=nba&closed=true')), ['900021', '900022', '900023'], 'filters combine');
});

function isSorted(values: readonly (number | undefined)[], ascending: boolean): boolean {
  return values.every((v, i) => i === 0 || v === undefined || (ascending ? (values[i - 1] as number) <= v : (values[i - 1] as number) >= v));
}

t.test('order and ascending over the documented columns', async (t) => {
  const byVolume = await list('order=volume24hr&ascending=false&limit=100');
  t.ok(isSorted(byVolume.map((m) => m.volume24hr as number), false), 'volume24hr descending');
  t.same(ids(await list('order=volume_24hr&ascending=false&limit=100')), ids(byVolume), 'snake_case alias');
  t.same(ids(await list('order=volume24hr&limit=100')), ids(byVolume), 'with order, descending by default');
  const byEnd = await list('order=endDate&ascending=true&limit=100');
  t.ok(isSorted(byEnd.map((m) => Date.parse(m.endDate as string)), true), 'endDate ascending');
  const byTwo = await list('order=endDate,volumeNum&ascending=true&limit=100');
  t.ok(isSorted(byTwo.map((m) => Date.parse(m.endDate as string)), true), 'several columns, comma-separated');
  t.same(ids(await list('ascending=false&limit=3')), ['900040', '900039', '900038'], 'ascending without order applies to the id');
  const byBid = await list('order=bestBid&ascending=true&limit=100');
  t.same(byBid.slice(-10).map((m) => m.bestBid), Array(10).fill(undefined), 'markets without a value sort last');
  for (const name of sortNames(MARKET_SORT_COLUMNS)) t.equal((await call('/markets', `order=${name}&limit=1`)).status, 200, `order=${name} is allowed`);
  t.match(await call('/markets', 'order=bogus'), badRequest('order: unknown field bogus'));
  t.match(await call('/markets', 'order=volume,bogus'), badRequest('order: unknown field bogus'));
  t.match(await call('/markets', 'order=volume&ascending=up'), badRequest('ascending must be true or false'));
});

t.test('creator scopes to the creator wallet or the site', async (t) => {
  const sports = ids(await list(`creator=${DEMO_CREATORS.sports}&limit=100`));
  t.same(sports, range(900015, 900029), 'NBA and bitcoin markets');
  t.same(ids(await list(`creator=${DEMO_CREATORS.sports.toUpperCase().replace('0X', '0x')}&limit=100`)), sports, 'case-insensitive');
  t.equal((await list('creator=demo&limit=100')).length, 40, 'the demo site holds every demo market');
  t.same(await list('creator=0x0000000000000000000000000000000000000001'), []);
  t.same(ids(await list(`creator=${DEMO_CREATORS.sports}&tag=weather`)), []);
});

t.test('GET /markets/{id}: numeric id or condition id, single form', async (t) => {
  const byId = await call('/markets/{id}', '', { id: RAIN });
  t.equal(byId.status, 200);
  const market = byId.body as GammaObject;
  t.equal(market.slug, RAIN_SLUG);
  const [event] = market.events as GammaObject[];
  for (const key of ['id', 'ticker', 'slug', 'title', 'description', 'resolutionSource', 'startDate', 'creationDate', 'endDate', 'image', 'icon', 'active', 'closed', 'archived', 'createdAt', 'updatedAt']) {
    t.ok(event !== undefined && key in event, `full event summary has ${key}`);
  }
  t.notOk(event !== undefined && 'markets' in event);
  const byCondition = await call('/markets/{id}', '', { id: demoConditionId(RAIN_SLUG) });
  t.same(byCondition.body, market, 'a condition id finds the same market');
  const notFound = { status: 404, body: { type: 'not found error', error: 'id not found' } };
  t.same(await call('/markets/{id}', '', { id: '123' }), notFound);
  t.same(await call('/markets/{id}', '', { id: '0x' + '0'.repeat(64) }), notFound);
  t.same(await call('/markets/{id}', '', { id: 'not-an-id' }), notFound);
  t.same(await call('/markets/{id}', `creator=${DEMO_CREATORS.sports}`, { id: RAIN }), notFound, 'not visible under another creator');
  t.equal((await call('/markets/{id}', `creator=${DEMO_CREATORS.markets}`, { id: RAIN })).status, 200);
});

t.test('GET /markets/slug/{slug}', async (t) => {
  const found = await call('/markets/slug/{slug}', '', { slug: RAIN_SLUG });
  t.equal(found.status, 200);
  t.equal((found.body as GammaObject).id, RAIN);
  t.ok('description' in ((found.body as GammaObject).events as GammaObject[])[0]!, 'single form');
  const notFound = { status: 404, body: { type: 'not found error', error: 'slug not found' } };
  t.same(await call('/markets/slug/{slug}', '', { slug: 'nope' }), notFound);
  t.same(await call('/markets/slug/{slug}', 'creator=elsewhere', { slug: RAIN_SLUG }), notFound);
});
