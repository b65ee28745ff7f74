// The catalog's market index (catalog/marketIndex.ts) over real catalog tables in the embedded ClickHouse:
// loaded from the demo catalog, looked up by condition id (any case) and token id, the read model's
// metadata from it, and refresh(): nothing changes until it runs, calls made during a run share the next.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { MarketIndex } from '../../catalog/marketIndex.js';
import { demoCatalogPath, loadDemoCatalog } from '../../catalog/demo/loadDemoCatalog.js';
import { importParsedDump } from '../../catalog/sync/dumpImport.js';
import { freshCatalog } from '../catalog/support/testCatalog.js';

interface DemoMarket {
  id: string;
  conditionId: string;
  question: string;
  clobTokenIds: string;
  events: { id: string; title: string }[];
  [key: string]: unknown;
}
const demo = JSON.parse(readFileSync(demoCatalogPath(), 'utf8')) as { markets: DemoMarket[]; events: { id: string; tags?: { label: string }[] }[] };
const first = demo.markets[0] as DemoMarket;
const firstTokens = JSON.parse(first.clobTokenIds) as [string, string];
const firstEvent = demo.events.find((e) => e.id === first.events[0]?.id);

const catalog = await freshCatalog();
await loadDemoCatalog(catalog.client, catalog.db);
const index = new MarketIndex(catalog.client, catalog.db);

t.test('empty until the first refresh, then every order-book market of the catalog', async (t) => {
  t.equal(index.size, 0);
  t.equal(index.get(first.conditionId), undefined);
  await index.refresh();
  t.equal(index.size, demo.markets.filter((m) => m.enableOrderBook === true).length);
});

t.test('a market by condition id in any case, and by token id', async (t) => {
  const m = index.get(first.conditionId.toUpperCase().replace('0X', '0x'));
  t.ok(m);
  t.match(m, {
    conditionId: first.conditionId.toLowerCase(),
    marketId: Number(first.id),
    catalogId: first.id,
    question: first.question,
    slug: first.slug,
    icon: first.icon,
    endDate: first.endDate,
    questionId: first.questionID,
    negRisk: first.negRisk === true,
    negRiskMarketId: first.negRiskMarketID,
    negRiskRequestId: first.negRiskRequestID,
    acceptingOrdersTimestamp: first.acceptingOrdersTimestamp,
    outcomes: ['Yes', 'No'],
    tokenIds: firstTokens,
    active: true,
    closed: false,
    rewards: { rates: [], min_size: first.rewardsMinSize, max_spread: first.rewardsMaxSpread },
    event: { id: first.events[0]?.id, title: first.events[0]?.title },
    tags: (firstEvent?.tags ?? []).map((tag) => tag.label),
  });
  t.equal(index.byToken(firstTokens[1]), m);
  t.equal(index.byToken('12345'), undefined);
  t.ok((m?.tags.length ?? 0) > 0, 'the demo event has tags');
});

t.test('metadata for the read model', async (t) => {
  const source = index.metadataSource();
  const meta = await source([first.conditionId, '0x' + '0'.repeat(64)]);
  t.equal(meta.size, 1);
  t.same(meta.get(first.conditionId), {
    title: first.question, slug: first.slug, icon: first.icon, eventSlug: index.get(first.conditionId)?.event?.slug, eventId: first.events[0]?.id,
    outcomes: ['Yes', 'No'], endDate: first.endDate, negRisk: first.negRisk === true,
  });
});

t.test('refresh(): changes appear only after it; concurrent calls share one run', async (t) => {
  const changed = { ...first, question: 'Changed?', outcomes: '["Up", "Down"]', updatedAt: '2030-01-01T00:00:00Z', events: undefined };
  const added = { ...first, id: '990001', conditionId: '0x' + 'ab'.repeat(32), clobTokenIds: '["91", "92"]', question: 'New?', updatedAt: '2030-01-01T00:00:00Z', events: undefined };
  const noBook = { ...first, id: '990002', conditionId: '0x' + 'cd'.repeat(32), clobTokenIds: '["93", "94"]', enableOrderBook: false, updatedAt: '2030-01-01T00:00:00Z', events: undefined };
  await importParsedDump(catalog, { markets: [changed, added, noBook] });
  t.equal(index.get(first.conditionId)?.question, first.question, 'unchanged before refresh');

  const a = index.refresh();
  const b = index.refresh();
  const c = index.refresh();
  t.equal(b, c, 'calls made while one runs share the next run');
  await Promise.all([a, b, c]);
  t.match(index.get(first.conditionId), { question: 'Changed?', outcomes: ['Up', 'Down'] });
  t.equal(index.get(first.conditionId)?.event?.id, first.events[0]?.id, 'links kept');
  t.match(index.get(added.conditionId), { question: 'New?', tokenIds: ['91', '92'], event: undefined, tags: [] });
  t.equal(index.byToken('92')?.conditionId, added.conditionId);
  t.equal(index.get(noBook.conditionId), undefined, 'markets without an order book are not indexed');
});
