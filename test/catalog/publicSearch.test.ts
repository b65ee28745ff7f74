// GET /public-search over the demo catalog: matching, ranking, paging, tags, creator scope, error rows.

import t from 'tap';
import { DEMO_CREATORS } from '../../catalog/demo/demoDefinitions.js';
import { demoCatalog, ids, type Call } from './support/handlerCalls.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';

let call: Call;
t.before(async () => {
  ({ call } = await demoCatalog());
});

interface SearchBody {
  events: GammaObject[];
  tags: GammaObject[];
  profiles?: unknown[];
  pagination: { hasMore: boolean; totalResults: number };
}

async function search(query: string): Promise<SearchBody> {
  const r = await call('/public-search', query);
  if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body as SearchBody;
}

const badRequest = (error: string) => ({ status: 400, body: { type: 'bad request', error } });

t.test('shape of spec 2.13', async (t) => {
  const body = await search('q=bitcoin');
  t.same(Object.keys(body).sort(), ['events', 'pagination', 'tags']);
  t.same(body.events[0], {
    id: '90007',
    ticker: 'bitcoin-above-on-december-31-2026',
    slug: 'bitcoin-above-on-december-31-2026',
    title: 'Bitcoin above ___ on December 31?',
  });
  t.same(body.tags, [{ id: '908', label: 'Bitcoin', slug: 'bitcoin', event_count: 2 }]);
  t.same(body.pagination, { hasMore: false, totalResults: 2 });
});

t.test('matching and ranking', async (t) => {
  t.same(ids((await search('q=bitcoin')).events), ['90007', '90008'], 'open before closed');
  t.same(ids((await search('q=BITCOIN')).events), ['90007', '90008'], 'case-insensitive');
  t.same(ids((await search('q=fed%20december')).events), ['90001'], 'every term must match');
  t.same(ids((await search('q=Avery%20Brooks')).events), ['90003'], 'an event matches through its markets\' questions');
  t.same(ids((await search('q=xyzzy')).events), []);
  t.same((await search('q=xyzzy')).pagination, { hasMore: false, totalResults: 0 });
});

t.test('limit_per_type and page', async (t) => {
  const first = await search('q=nba&limit_per_type=1');
  t.equal(first.events.length, 1);
  t.same(first.pagination, { hasMore: true, totalResults: 3 });
  t.same(first.tags.map((tag) => tag.slug), ['nba'], 'tags are limited per type too');
  const second = await search('q=nba&limit_per_type=1&page=2');
  t.equal(second.events.length, 1);
  t.not(second.events[0]?.id, first.events[0]?.id);
  t.same((await search('q=nba&limit_per_type=1&page=3')).pagination, { hasMore: false, totalResults: 3 });
  t.same((await search('q=nba&limit_per_type=1&page=4')).events, []);
  t.equal((await search('q=nba&limit_per_type=500')).events.length, 3, 'an oversized limit is clamped');
});

t.test('search_tags, search_profiles, creator', async (t) => {
  t.same((await search('q=bitcoin&search_tags=false')).tags, []);
  t.equal((await search('q=bitcoin&search_tags=true')).tags.length, 1);
  t.same((await search('q=bitcoin&search_profiles=true')).profiles, [], 'accepted; no profiles');
  const scoped = await search(`q=bitcoin&creator=${DEMO_CREATORS.markets}`);
  t.same(scoped.events, []);
  t.same(scoped.tags, [], 'tags without a visible event are left out');
  t.same(ids((await search(`q=bitcoin&creator=${DEMO_CREATORS.sports}`)).events), ['90007', '90008']);
  t.same((await search('q=tech')).tags, [{ id: '913', label: 'Tech', slug: 'tech', event_count: 2 }]);
});

t.test('error rows', async (t) => {
  t.same(await call('/public-search', ''), badRequest('q is required'));
  t.same(await call('/public-search', 'q='), badRequest('q is required'));
  t.same(await call('/public-search', 'q=%20%20'), badRequest('q is required'));
  t.same(await call('/public-search', `q=${'a'.repeat(201)}`), badRequest('q must be at most 200 characters'));
  t.same(await call('/public-search', 'q=fed&page=0'), badRequest('page must be an integer of at least 1'));
  t.same(await call('/public-search', 'q=fed&limit_per_type=many'), badRequest('limit_per_type must be an integer'));
  t.same(await call('/public-search', 'q=fed&search_tags=perhaps'), badRequest('search_tags must be true or false'));
});
