// The catalog surface over HTTP, on the whole service with the demo catalog: every route under /catalog and
// at the root (GET /markets at the root is the catalog variant unless the query has next_cursor), the spec §7
// catalog error rows ({type: 'bad request'}, {type: 'not found error', error: 'id not found' | 'slug not
// found'}), and that each HTTP body equals what the transport-independent handler returns: the response
// schemas (fast-json-stringify) neither drop nor coerce a field.

import t from 'tap';
import { catalogRoutes } from '../../api/catalog/catalogRoutes.js';
import type { HandlerResponse } from '../../api/catalog/handlerTypes.js';
import { startTestService } from '../support/serviceFixture.js';
import { get } from '../support/httpGet.js';


const svc = await startTestService();
t.teardown(() => svc.close());
const base = svc.baseUrl;
const routes = catalogRoutes(svc.service.catalog.catalog);

/** Calls the handler that serves `path` (a path of catalogRoutes, with `{name}` parameters filled). */
async function direct(path: string): Promise<HandlerResponse> {
  const url = new URL(path, 'http://x');
  for (const route of routes) {
    const names: string[] = [];
    const pattern = new RegExp('^' + route.path.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/]+)')) + '$');
    const match = pattern.exec(url.pathname);
    if (match === null) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? '')]));
    return route.handler({ params, query: url.searchParams });
  }
  throw new Error(`no catalog route for ${path}`);
}

/** JSON as the handler's body would be written without any schema. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

type Obj = Record<string, unknown>;
const [market] = (await direct('/markets?limit=1&closed=false')).body as Obj[];
const [event] = (await direct('/events?limit=1')).body as Obj[];
const [series] = (await direct('/series?limit=1')).body as Obj[];
const [tag] = (await direct('/tags?limit=1')).body as Obj[];
if (market === undefined || event === undefined || series === undefined || tag === undefined) throw new Error('the demo catalog is empty');
const marketId = String(market.id);
const marketSlug = String(market.slug);
const conditionId = String(market.conditionId);
const eventId = String(event.id);
const eventSlug = String(event.slug);
const word = String(event.title).split(/\s+/).find((w) => w.length > 3) ?? 'will';

t.test('every route: the HTTP body equals the handler body, under /catalog and at the root', async (t) => {
  const paths = [
    '/markets',
    '/markets?limit=5&offset=3',
    '/markets?limit=3&order=volume&ascending=false',
    '/markets?active=true&closed=false&archived=false&limit=50',
    '/markets?closed=true',
    `/markets?tag=${String(tag.slug)}`,
    `/markets?tag_id=${String(tag.id)}`,
    `/markets?event_id=${eventId}`,
    `/markets?event_slug=${eventSlug}`,
    `/markets?eventSlug=${eventSlug}`,
    `/markets?conditionId=${conditionId}`,
    `/markets?condition_id=${conditionId}`,
    `/markets?slug=${marketSlug}`,
    `/markets?creator=${String(market.submitted_by ?? '')}`,
    `/markets/${marketId}`,
    `/markets/slug/${marketSlug}`,
    '/events',
    '/events?limit=2&offset=1&order=title&ascending=true',
    `/events?series_slug=${String(series.slug)}`,
    `/events?slug=${eventSlug}`,
    '/events?closed=true',
    `/events/${eventId}`,
    `/events/slug/${eventSlug}`,
    '/series',
    '/series?limit=1&offset=1',
    '/tags',
    '/tags?limit=3&offset=2',
    `/public-search?q=${encodeURIComponent(word)}`,
    `/public-search?q=${encodeURIComponent(word)}&limit_per_type=1&page=2&search_tags=false`,
    `/public-search?q=${encodeURIComponent(word)}&search_profiles=true`,
  ];
  for (const path of paths) {
    const expected = await direct(path);
    t.equal(expected.status, 200, `handler ${path}`);
    const prefixed = await get(base, `/catalog${path}`);
    t.equal(prefixed.status, 200, `/catalog${path}`);
    t.match(prefixed.contentType, /application\/json/);
    t.strictSame(prefixed.body, wire(expected.body), `/catalog${path}: nothing dropped or coerced`);
    if (path.startsWith('/markets') || path.startsWith('/events') || path.startsWith('/series') || path.startsWith('/tags') || path.startsWith('/public-search')) {
      const root = await get(base, path);
      t.equal(root.status, 200, path);
      t.strictSame(root.body, prefixed.body, `${path} at the root is the catalog`);
    }
  }
  t.ok(((await get(base, '/catalog/markets?limit=50')).body as unknown[]).length > 1, 'lists have rows');
});

t.test('the shapes the spec guarantees', async (t) => {
  const one = (await get(base, `/markets/${marketId}`)).body as Obj;
  t.match(one, { id: marketId, conditionId, slug: marketSlug, question: String, outcomes: String, clobTokenIds: String, active: Boolean, closed: Boolean });
  t.ok(Array.isArray(one.events), 'a single market carries its events');
  t.strictSame((await get(base, `/catalog/markets/${conditionId}`)).body, one, 'the catalog also finds a market by condition id under /catalog');
  const search = (await get(base, `/public-search?q=${encodeURIComponent(word)}&search_profiles=true`)).body as Obj;
  t.match(search, { events: Array, tags: Array, profiles: [], pagination: { hasMore: Boolean, totalResults: Number } });
  const root = await get(base, '/markets?next_cursor=MA==');
  t.notOk(Array.isArray(root.body), 'with next_cursor, root /markets is the order-book variant (a page object)');
});

t.test('errors (spec §7): bad request', async (t) => {
  const cases: [string, string][] = [
    ['/public-search', 'q is required'],
    ['/public-search?q=', 'q is required'],
    [`/public-search?q=${'x'.repeat(201)}`, 'q must be at most 200 characters'],
    ['/public-search?q=a&page=0', 'page must be an integer of at least 1'],
    ['/public-search?q=a&search_tags=maybe', 'search_tags must be true or false'],
    ['/series?limit=0', 'limit must be an integer of at least 1'],
    ['/series?limit=101', 'limit must be an integer from 1 to 100'],
    ['/series?offset=-1', 'offset must be an integer of at least 0'],
    ['/markets?limit=abc', 'limit must be an integer'],
    ['/markets?active=maybe', 'active must be true or false'],
    ['/markets?order=nope', 'order: unknown field nope'],
    ['/markets?tag_id=x', 'tag_id must be an integer'],
    [`/markets?limit=${'1'.repeat(2001)}`, 'limit must be an integer'],
    ['/markets?active=1', 'active must be true or false'],
    [`/markets?slug=${Array.from({ length: 11 }, (_, i) => `s${i}`).join(',')}`, 'slug must have at most 10 items'],
    ['/events?offset=1.5', 'offset must be an integer'],
    ['/events/abc', 'id must be an integer'],
    ['/tags?limit=-3', 'limit must be an integer of at least 0'],
  ];
  for (const [path, error] of cases) {
    for (const where of [`/catalog${path}`, path]) {
      const got = await get(base, where);
      t.equal(got.status, 400, where.slice(0, 100));
      t.strictSame(got.body, { type: 'bad request', error }, where.slice(0, 100));
    }
  }
});

t.test('errors (spec §7): not found by id and by slug', async (t) => {
  const idNotFound = { type: 'not found error', error: 'id not found' };
  const slugNotFound = { type: 'not found error', error: 'slug not found' };
  const cases: [string, unknown][] = [
    ['/markets/999999999', idNotFound],
    ['/catalog/markets/999999999', idNotFound],
    ['/markets/not-a-number', idNotFound],
    [`/catalog/markets/0x${'00'.repeat(32)}`, idNotFound],
    ['/markets/slug/no-such-market', slugNotFound],
    ['/catalog/markets/slug/no-such-market', slugNotFound],
    ['/events/999999999', idNotFound],
    ['/catalog/events/999999999', idNotFound],
    ['/events/slug/no-such-event', slugNotFound],
    ['/catalog/events/slug/no-such-event', slugNotFound],
    [`/markets/${marketId}?creator=someone-else`, idNotFound],
    [`/markets/slug/${marketSlug}?creator=someone-else`, slugNotFound],
  ];
  for (const [path, body] of cases) {
    const got = await get(base, path);
    t.equal(got.status, 404, path);
    t.strictSame(got.body, body, path);
    t.match(got.contentType, /application\/json/);
  }
});
