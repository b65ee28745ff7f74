// GET /data/orders pages kept whole (projections/live/orderPageCache.ts): after every record of generated
// trading histories, the page memory sends is the route's serialisation of the page made afresh; a page asked
// for again with nothing changed is the kept one; a new metadata generation makes it again; the bound holds.

import t from 'tap';
import { LiveState } from '../../projections/live/liveState.js';
import { liveAccountOrders, liveAccountOrdersJson } from '../../projections/live/liveReads.js';
import { OrderPageCache } from '../../projections/live/orderPageCache.js';
import { metadataFrom, type MarketMetadata, type MarketMetadataSource } from '../../projections/readModel/index.js';
import { compileRoute } from '../../api/http/schemas.js';
import { ORDER, page as pageSchema } from '../../api/trading/accountSchemas.js';
import { FEE_ACCOUNT, loggedSession, sessionFor } from '../support/projectionFixtures.js';

const pageJson = compileRoute({ method: 'GET', path: '/data/orders', surface: 'clob', summary: '', response: pageSchema(ORDER), handler: () => ({ status: 200, body: null }) }).stringify;

function source(labels: { current: readonly [string, string] }, generation: { n: number }): MarketMetadataSource {
  const meta = (): MarketMetadata => ({ title: 'Alpha Cup', slug: 'alpha', icon: '', eventSlug: 'a', eventId: '1', outcomes: labels.current, endDate: '' });
  return Object.assign(metadataFrom((id) => (id === '0xm1' ? meta() : undefined)), { generation: () => generation.n });
}

t.test('after every record, the page sent is the page made afresh; unchanged, it is the kept one', async (t) => {
  const session = await loggedSession(sessionFor(11, 400));
  const state = new LiveState({ feeAccount: FEE_ACCOUNT });
  const labels: { current: readonly [string, string] } = { current: ['Up', 'Down'] };
  const generation = { n: 1 };
  const metadata = source(labels, generation);
  const accounts = [...new Set(session.records.flatMap((r) => r.events.flatMap((e) => (e.type === 'OrderAccepted' ? [e.account] : []))))];
  t.ok(accounts.length >= 3, `${accounts.length} accounts place orders`);
  let compared = 0;
  let kept = 0;
  let servedAcross = 0;
  const lastSent = new Map<string, Buffer>();
  for (const [i, record] of session.records.entries()) {
    state.apply(record);
    // Another generation now and then, with other labels: every kept page goes stale at once.
    if (i % 97 === 0) {
      generation.n += 1;
      labels.current = generation.n % 2 === 0 ? ['Up', 'Down'] : ['Higher', 'Lower'];
    }
    // Each account asks one query all along (one page is kept per account), so a kept page meets the records after it.
    for (const [j, caller] of accounts.entries()) {
      for (const params of [[{ caller }, { caller, limit: 2 }, { caller, market: '0xm1' }][j % 3] as { caller: string; limit?: number; market?: string }]) {
        const before = state.orderPages.bytes;
        const sent = await liveAccountOrdersJson(state, metadata, params);
        if (state.orderPages.bytes === before && Buffer.isBuffer(sent) && state.orderPages.size > 0 && lastSent.get(caller) === sent) servedAcross += 1;
        if (Buffer.isBuffer(sent)) lastSent.set(caller, sent);
        const again = await liveAccountOrdersJson(state, metadata, params);
        const fresh = pageJson(await liveAccountOrders(state, metadata, params));
        const text = Buffer.isBuffer(sent) ? sent.toString('utf8') : pageJson(sent);
        if (text !== fresh) t.equal(text, fresh, `record ${record.pos}: ${JSON.stringify(params)}`);
        if (Buffer.isBuffer(sent) && again === sent) kept += 1;
        else if (Buffer.isBuffer(sent)) t.fail(`record ${record.pos}: asked again at once, ${JSON.stringify(params)} was made again`);
        compared += 1;
      }
    }
  }
  t.ok(compared > 1000, `${compared} pages compared`);
  t.ok(kept > 1000, `${kept} pages asked for again were the kept ones`);
  t.ok(servedAcross > 100, `${servedAcross} pages kept from an earlier record were sent`);
  t.ok(state.orderPages.size > 0 && state.orderPages.size <= accounts.length, 'one page per account');
  await session.journal.close();
});

t.test('a source without a generation gets nothing kept', async (t) => {
  const session = await loggedSession(sessionFor(4, 200));
  const state = new LiveState({ feeAccount: FEE_ACCOUNT });
  for (const r of session.records) state.apply(r);
  const caller = [...state.openByAccount.keys()][0] as string;
  const metadata = metadataFrom(() => undefined);
  const first = await liveAccountOrdersJson(state, metadata, { caller });
  const second = await liveAccountOrdersJson(state, metadata, { caller });
  t.ok(Buffer.isBuffer(first) && Buffer.isBuffer(second) && first !== second && first.equals(second), 'made again, the same bytes');
  t.equal(state.orderPages.size, 0);
  await session.journal.close();
});

t.test('the bound: pages used longest ago leave first; a page over the bound is not kept', (t) => {
  const cache = new OrderPageCache(100);
  cache.keep('a', 'k', 1, Buffer.alloc(40));
  cache.keep('b', 'k', 1, Buffer.alloc(40));
  t.ok(cache.get('a', 'k', 1), 'a is used: b is now the oldest');
  cache.keep('c', 'k', 1, Buffer.alloc(40));
  t.equal(cache.get('b', 'k', 1), undefined, 'b left');
  t.ok(cache.get('a', 'k', 1) && cache.get('c', 'k', 1), 'a and c stay');
  t.equal(cache.bytes, 80);
  t.equal(cache.get('a', 'other', 1), undefined, 'another query of the account misses');
  t.equal(cache.get('a', 'k', 2), undefined, 'another generation misses');
  cache.keep('a', 'k2', 1, Buffer.alloc(30));
  t.equal(cache.bytes, 70, "the account's new page replaces its old one");
  cache.keep('d', 'k', 1, Buffer.alloc(101));
  t.equal(cache.get('d', 'k', 1), undefined, 'over the bound: not kept');
  cache.drop('c');
  t.equal(cache.bytes, 30);
  t.equal(cache.size, 1);
  t.end();
});
