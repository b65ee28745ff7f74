// Read model: GET /trades (activity) and GET /holders against the hand-built session of readModelFixture.ts.

import t from 'tap';
import { activityTrades, holders, ReadModelInputError, transactionHashOf, type ActivityTrade } from '../../projections/readModel/index.js';
import { ALICE, BOB, C1, C2, C3, C4, C5, CAROL, DAVE, T0S, readModelFixture } from './readModelFixture.js';

const brief = (rows: ActivityTrade[]): string[] => rows.map((r) => `${r.proxyWallet} ${r.side} ${r.asset} ${r.size}@${r.price}`);

t.test('activity trades', async (t) => {
  const { ctx, fillIds } = await readModelFixture();
  const [f1, f2, f3, f4, f5, f6, f7] = fillIds as [string, string, string, string, string, string, string];

  t.test('default: taker sides only, newest first, every field', async (t) => {
    const rows = await activityTrades(ctx);
    t.same(brief(rows), [
      `${DAVE} BUY 0xc5:0 4@0.7`, `${DAVE} BUY 0xc5:0 3@0.55`, `${DAVE} BUY 0xc5:0 2@0.5`,
      `${ALICE} BUY 0xc3:0 4@0.25`, `${ALICE} SELL 0xc1:0 5@0.7`, `${ALICE} BUY 0xc1:0 10@0.6`, `${ALICE} BUY 0xc1:0 10@0.4`,
    ]);
    t.same(rows.map((r) => r.transactionHash), [f7, f6, f5, f4, f3, f2, f1].map(transactionHashOf));
    t.same(rows[4], {
      proxyWallet: ALICE, side: 'SELL', asset: `${C1}:0`, conditionId: C1, size: 5, price: 0.7, timestamp: T0S + 5 * 60 + 2, usdcSize: 3.5,
      title: 'Will Alpha happen?', slug: 'alpha', icon: 'https://img/alpha.png', eventSlug: 'alpha-event', outcome: 'Alpha', outcomeIndex: 0,
      name: '', pseudonym: '', bio: '', profileImage: '', profileImageOptimized: '', transactionHash: transactionHashOf(f3),
    });
    t.match(rows[0]?.transactionHash, /^0x[0-9a-f]{64}$/);
  });

  t.test('takerOnly=false: both sides of every fill, taker first, same transaction hash', async (t) => {
    const rows = await activityTrades(ctx, { takerOnly: false });
    t.equal(rows.length, 14);
    t.same(brief(rows.slice(0, 2)), [`${DAVE} BUY 0xc5:0 4@0.7`, `${CAROL} BUY 0xc5:1 4@0.3`], 'a mint: both sides buy, each its own token');
    t.equal(rows[0]?.transactionHash, rows[1]?.transactionHash);
    t.same(brief(await activityTrades(ctx, { user: BOB })), [], 'bob never took');
    t.same(brief(await activityTrades(ctx, { user: BOB, takerOnly: false })), [
      `${BOB} SELL 0xc5:0 3@0.55`, `${BOB} SELL 0xc3:0 4@0.25`, `${BOB} SELL 0xc1:0 10@0.6`, `${BOB} SELL 0xc1:0 10@0.4`,
    ]);
  });

  t.test('filters: user, market list, side', async (t) => {
    t.equal((await activityTrades(ctx, { user: ALICE })).length, 4);
    t.same(brief(await activityTrades(ctx, { market: [C3, C2] })), [`${ALICE} BUY 0xc3:0 4@0.25`]);
    t.same(brief(await activityTrades(ctx, { side: 'SELL' })), [`${ALICE} SELL 0xc1:0 5@0.7`]);
    t.same(brief(await activityTrades(ctx, { side: 'sell', user: CAROL, takerOnly: false })), [`${CAROL} SELL 0xc5:0 2@0.5`], 'side in any case');
    t.same(await activityTrades(ctx, { user: "x' OR 1=1 --" }), [], 'input is bound, never spliced into SQL');
  });

  t.test('CASH and TOKENS thresholds (inclusive)', async (t) => {
    t.same(brief(await activityTrades(ctx, { filterType: 'CASH', filterAmount: 4 })), [`${ALICE} BUY 0xc1:0 10@0.6`, `${ALICE} BUY 0xc1:0 10@0.4`]);
    t.same(brief(await activityTrades(ctx, { filterType: 'CASH', filterAmount: 4.000001 })), [`${ALICE} BUY 0xc1:0 10@0.6`]);
    t.same(brief(await activityTrades(ctx, { filterType: 'TOKENS', filterAmount: 5 })), [`${ALICE} SELL 0xc1:0 5@0.7`, `${ALICE} BUY 0xc1:0 10@0.6`, `${ALICE} BUY 0xc1:0 10@0.4`]);
    t.equal((await activityTrades(ctx, { filterType: 'TOKENS', filterAmount: 0 })).length, 7);
  });

  t.test('limit and offset', async (t) => {
    const all = brief(await activityTrades(ctx, { takerOnly: false }));
    t.same(brief(await activityTrades(ctx, { takerOnly: false, limit: 3, offset: 2 })), all.slice(2, 5));
    t.same(await activityTrades(ctx, { limit: 0 }), []);
    t.same(await activityTrades(ctx, { offset: 10_000 }), []);
    t.equal((await activityTrades(ctx, { limit: 10_000 })).length, 7);
  });

  t.test('out-of-range input is refused with a typed error', async (t) => {
    const bad: [object, RegExp][] = [
      [{ limit: 10_001 }, /^limit:/], [{ limit: -1 }, /^limit:/], [{ limit: 1.5 }, /^limit:/], [{ offset: 10_001 }, /^offset:/],
      [{ filterType: 'CASH' }, /together/], [{ filterAmount: 3 }, /together/], [{ filterType: 'USD', filterAmount: 1 }, /^filterType:/],
      [{ filterType: 'CASH', filterAmount: -1 }, /^filterAmount:/], [{ filterType: 'CASH', filterAmount: Number.NaN }, /^filterAmount:/],
      [{ side: 'HOLD' }, /^side:/], [{ market: [''] }, /^market:/],
    ];
    for (const [params, message] of bad) await t.rejects(activityTrades(ctx, params), { name: 'ReadModelInputError', message }, JSON.stringify(params));
    await activityTrades(ctx, { limit: 10_001 }).catch((e: unknown) => t.ok(e instanceof ReadModelInputError && e.param === 'limit' && !e.retriable));
  });
});

t.test('holders', async (t) => {
  const { ctx } = await readModelFixture();
  const summary = async (params: Parameters<typeof holders>[1]) =>
    (await holders(ctx, params)).map((g) => `${g.token}: ${g.holders.map((h) => `${h.proxyWallet}=${h.amount}`).join(' ')}`);

  t.test('per token of each market, by amount descending; default minBalance 1 share', async (t) => {
    t.same(await summary({ market: [C1, C5] }), [
      `${C1}:0: ${BOB}=80 ${ALICE}=15 ${CAROL}=5`, `${C1}:1: ${BOB}=100`,
      `${C5}:0: ${DAVE}=8.91 ${CAROL}=8 ${BOB}=7`, `${C5}:1: ${CAROL}=14 ${BOB}=10`,
    ]);
    const [group] = await holders(ctx, { market: [C1] });
    t.same(group?.holders[1], {
      proxyWallet: ALICE, bio: '', asset: `${C1}:0`, pseudonym: '', amount: 15, displayUsernamePublic: false, outcomeIndex: 0, name: '', profileImage: '', profileImageOptimized: '',
    });
  });

  t.test('minBalance, limit, market order, unknown markets, the fee account', async (t) => {
    t.same(await summary({ market: [C1], minBalance: 15 }), [`${C1}:0: ${BOB}=80 ${ALICE}=15`, `${C1}:1: ${BOB}=100`]);
    t.same(await summary({ market: [C1], minBalance: 15.000001 }), [`${C1}:0: ${BOB}=80`, `${C1}:1: ${BOB}=100`]);
    t.same(await summary({ market: [C5, C1], limit: 1 }), [`${C5}:0: ${DAVE}=8.91`, `${C5}:1: ${CAROL}=14`, `${C1}:0: ${BOB}=80`, `${C1}:1: ${BOB}=100`]);
    t.same(await summary({ market: [C4] }), [`${C4}:0: `, `${C4}:1: `], 'half a share is below the default minBalance');
    t.same(await summary({ market: [C4], minBalance: 0 }), [`${C4}:0: ${ALICE}=0.5`, `${C4}:1: ${ALICE}=0.5`]);
    t.same(await summary({ market: [C5], minBalance: 0 }), [`${C5}:0: ${DAVE}=8.91 ${CAROL}=8 ${BOB}=7`, `${C5}:1: ${CAROL}=14 ${BOB}=10`], 'the fee account (0.09 Y5) is not a holder');
    t.same(await summary({ market: ['0xunknown', C2], limit: 0 }), [`${C2}:0: `, `${C2}:1: `]);
    t.same(await summary({ market: [C3] }), [`${C3}:0: ${BOB}=6 ${ALICE}=4`, `${C3}:1: ${BOB}=10`], 'a resolved market keeps its holders until they redeem');
  });

  t.test('bounds', async (t) => {
    await t.rejects(holders(ctx, { market: [] }), { name: 'ReadModelInputError', message: /^market:/ });
    await t.rejects(holders(ctx, { market: [C1], limit: 501 }), { message: /^limit:/ });
    await t.rejects(holders(ctx, { market: [C1], minBalance: -1 }), { message: /^minBalance:/ });
    t.equal((await holders(ctx, { market: [C1], limit: 500 })).length, 2);
  });
});
