// Read model: GET /positions against the hand-built session of readModelFixture.ts. PnL figures are worked
// out by hand there: alice bought 10 Y1 @0.40 and 10 @0.60, sold 5 @0.70, and Y1's book is 0.60 / 0.70.

import t from 'tap';
import { positions, type Position, type PositionsParams } from '../../projections/readModel/index.js';
import { ALICE, BOB, C1, C2, C3, C4, readModelFixture } from './readModelFixture.js';

t.test('positions', async (t) => {
  const { ctx } = await readModelFixture();
  const assets = async (params: Partial<PositionsParams> = {}): Promise<string[]> => (await positions(ctx, { user: ALICE, ...params })).map((p) => p.asset);
  const byAsset = (rows: Position[], asset: string): Position | undefined => rows.find((p) => p.asset === asset);

  t.test('average cost and PnL by hand: buy 10 @0.40, buy 10 @0.60, sell 5 @0.70, marked at the 0.65 midpoint', async (t) => {
    const rows = await positions(ctx, { user: ALICE });
    t.same(byAsset(rows, `${C1}:0`), {
      proxyWallet: ALICE, asset: `${C1}:0`, conditionId: C1,
      size: 15, avgPrice: 0.5, initialValue: 7.5, // 4 + 6 − 5 × 0.50
      currentValue: 9.75, cashPnl: 2.25, percentPnl: 30, // 15 × 0.65; 9.75 − 7.5; 2.25 / 7.5
      totalBought: 20, realizedPnl: 1, // 5 × (0.70 − 0.50)
      percentRealizedPnl: 7.5, // (1 + 9.75 − 20 × 0.5) / (20 × 0.5)
      curPrice: 0.65, redeemable: false, mergeable: false,
      title: 'Will Alpha happen?', slug: 'alpha', icon: 'https://img/alpha.png', eventId: '101', eventSlug: 'alpha-event',
      outcome: 'Alpha', outcomeIndex: 0, oppositeOutcome: 'Not Alpha', oppositeAsset: `${C1}:1`, endDate: '2026-03-01', negativeRisk: false,
      timestamp: Math.floor(Date.UTC(2023, 10, 14, 22, 19, 2) / 1000), // the sell at m5 + 2 s
    });
  });

  t.test('after resolution: curPrice 1 or 0, redeemable, never mergeable', async (t) => {
    const y3 = byAsset(await positions(ctx, { user: ALICE }), `${C3}:0`);
    t.match(y3, { size: 4, avgPrice: 0.25, initialValue: 1, curPrice: 1, currentValue: 4, cashPnl: 3, percentPnl: 300, redeemable: true, mergeable: false });
    const bob = await positions(ctx, { user: BOB });
    // bob split 10 C3 (0.50 each side), sold 4 Y3 @0.25: Y3 6 at cost 3, realized −1; N3 10 at cost 5; C3 resolved to outcome 0.
    t.match(byAsset(bob, `${C3}:0`), { size: 6, avgPrice: 0.5, curPrice: 1, currentValue: 6, cashPnl: 3, realizedPnl: -1, totalBought: 10, percentRealizedPnl: 0, redeemable: true, mergeable: false });
    t.match(byAsset(bob, `${C3}:1`), { size: 10, curPrice: 0, currentValue: 0, cashPnl: -5, percentPnl: -100, redeemable: true, mergeable: false, outcome: 'No', oppositeOutcome: 'Yes' });
    t.match(byAsset(bob, `${C1}:1`), { size: 100, mergeable: true, redeemable: false }, 'bob holds both outcomes of C1');
    t.match(byAsset(bob, `${C1}:0`), { size: 80, mergeable: true }, 'tokens reserved by a resting sell are still held');
  });

  t.test('splits: both outcomes at 0.50, mergeable; sizeThreshold', async (t) => {
    const rows = await positions(ctx, { user: ALICE });
    t.match(byAsset(rows, `${C2}:0`), { size: 3, avgPrice: 0.5, initialValue: 1.5, curPrice: 0.3, currentValue: 0.9, cashPnl: -0.6, percentPnl: -40, mergeable: true, outcome: 'Home', oppositeOutcome: 'Away', oppositeAsset: `${C2}:1` });
    t.match(byAsset(rows, `${C2}:1`), { size: 3, curPrice: 0.7, currentValue: 2.1, cashPnl: 0.6, percentPnl: 40, mergeable: true });
    t.same(await assets(), [`${C1}:0`, `${C3}:0`, `${C2}:0`, `${C2}:1`], 'default sizeThreshold 1 leaves out the half-share C4 split');
    t.same(await assets({ sizeThreshold: 0.5 }), [`${C1}:0`, `${C3}:0`, `${C2}:0`, `${C2}:1`, `${C4}:0`, `${C4}:1`]);
    t.same(await assets({ sizeThreshold: 0.500001 }), [`${C1}:0`, `${C3}:0`, `${C2}:0`, `${C2}:1`]);
    const c4 = byAsset(await positions(ctx, { user: ALICE, sizeThreshold: 0 }), `${C4}:1`);
    t.match(c4, { size: 0.5, avgPrice: 0.5, curPrice: 0, title: '', slug: '', eventSlug: '', endDate: '', outcome: 'No', oppositeOutcome: 'Yes', mergeable: true }, 'no metadata: fallback labels; no mark: curPrice 0');
  });

  t.test('filters: redeemable, mergeable, market, title', async (t) => {
    t.same(await assets({ redeemable: true }), [`${C3}:0`]);
    t.same(await assets({ mergeable: true }), [`${C2}:0`, `${C2}:1`]);
    t.same(await assets({ mergeable: true, sizeThreshold: 0 }), [`${C2}:0`, `${C2}:1`, `${C4}:0`, `${C4}:1`]);
    t.same(await assets({ redeemable: false, mergeable: false }), await assets(), 'false means no filter');
    t.same(await assets({ market: [C3, C1] }), [`${C1}:0`, `${C3}:0`]);
    t.same(await assets({ title: 'beta' }), [`${C2}:0`, `${C2}:1`]);
    t.same(await assets({ title: 'ALPHA' }), [`${C1}:0`], 'case-insensitive');
    t.same(await assets({ title: 'zzz' }), []);
    t.same(await assets({ title: '' }), await assets());
    t.same(await positions(ctx, { user: '0xnobody' }), []);
  });

  t.test('every sortBy, both directions; ties by conditionId then outcome', async (t) => {
    const [y1, y3, y2, n2] = [`${C1}:0`, `${C3}:0`, `${C2}:0`, `${C2}:1`];
    const expected: [string, string, string[]][] = [
      ['TOKENS', 'DESC', [y1, y3, y2, n2]], // 15, 4, 3, 3
      ['TOKENS', 'ASC', [y2, n2, y3, y1]],
      ['CURRENT', 'DESC', [y1, y3, n2, y2]], // 9.75, 4, 2.1, 0.9
      ['INITIAL', 'ASC', [y3, y2, n2, y1]], // 1, 1.5, 1.5, 7.5
      ['CASHPNL', 'DESC', [y3, y1, n2, y2]], // 3, 2.25, 0.6, −0.6
      ['PERCENTPNL', 'ASC', [y2, y1, n2, y3]], // −40, 30, 40, 300
      ['TITLE', 'ASC', [y2, n2, y3, y1]], // Beta cup, Gamma vote, Will Alpha happen?
      ['TITLE', 'DESC', [y1, y3, y2, n2]],
      ['RESOLVING', 'ASC', [y3, y2, n2, y1]], // 2025-12-31, 2026-01-15, 2026-03-01
      ['PRICE', 'DESC', [y3, n2, y1, y2]], // 1, 0.7, 0.65, 0.3
      ['AVGPRICE', 'ASC', [y3, y1, y2, n2]], // 0.25, then 0.5 × 3
    ];
    for (const [sortBy, sortDirection, order] of expected) t.same(await assets({ sortBy, sortDirection }), order, `${sortBy} ${sortDirection}`);
    t.same(await assets({ sortBy: 'price' }), [y3, n2, y1, y2], 'default direction DESC, names in any case');
  });

  t.test('limit and offset', async (t) => {
    t.same(await assets({ limit: 2, offset: 1 }), [`${C3}:0`, `${C2}:0`]);
    t.same(await assets({ limit: 0 }), []);
    t.same(await assets({ offset: 4 }), []);
    t.same(await assets({ offset: 10_000, limit: 500 }), []);
  });

  t.test('out-of-range input is refused with a typed error', async (t) => {
    const bad: [Partial<PositionsParams>, RegExp][] = [
      [{ user: '' }, /^user:/], [{ limit: 501 }, /^limit:/], [{ limit: -1 }, /^limit:/], [{ offset: 10_001 }, /^offset:/],
      [{ sortBy: 'SIZE' }, /^sortBy:/], [{ sortDirection: 'UP' }, /^sortDirection:/], [{ title: 'x'.repeat(101) }, /^title:/],
      [{ sizeThreshold: -0.1 }, /^sizeThreshold:/], [{ sizeThreshold: Number.POSITIVE_INFINITY }, /^sizeThreshold:/],
    ];
    for (const [params, message] of bad) await t.rejects(positions(ctx, { user: ALICE, ...params }), { name: 'ReadModelInputError', message }, JSON.stringify(params));
    t.equal((await positions(ctx, { user: ALICE, title: 'x'.repeat(100) })).length, 0);
  });
});
