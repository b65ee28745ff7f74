// Read model over generated sessions (the model generator: every kind of fill, cancels, splits, merges,
// resolutions and redemptions): what the query functions return agrees with the engine and the log.

import t from 'tap';
import type { TradeExecuted } from '../../engine/index.js';
import { Projector } from '../../projections/projector.js';
import { accountTrades, activityTrades, holders, positions, readContext, type AccountTrade } from '../../projections/readModel/index.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { ACCOUNTS, MARKETS } from '../engine/modelCommands.js';

for (const seed of [11, 12]) {
  t.test(`seed ${seed}: positions, holders, activity and account trades agree with the engine and the log`, async (t) => {
    const session = await loggedSession(sessionFor(seed, 600));
    const { ch, db } = await freshDatabase();
    const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 61 });
    await projector.start();
    await projector.catchUp();
    await session.journal.close();
    const ctx = readContext(ch, db, { feeAccount: FEE_ACCOUNT });
    const fills = session.records.flatMap((r) => r.events).filter((e): e is TradeExecuted => e.type === 'TradeExecuted');
    t.ok(fills.length > 30, `${fills.length} fills`);

    const tokenMarket = new Map(MARKETS.flatMap((m) => m.tokenIds.map((tok, i) => [tok, `${m.conditionId}:${i}`] as const)));
    for (const account of ACCOUNTS) {
      const held = [...(session.engine.state.ledger.accounts.get(account)?.holdings ?? new Map())]
        .filter(([, h]) => h.free + h.reserved > 0)
        .map(([tok, h]) => `${tokenMarket.get(tok)} ${(h.free + h.reserved) / 1e6}`)
        .sort();
      const rows = await positions(ctx, { user: account, sizeThreshold: 0, limit: 500 });
      t.same(rows.map((p) => `${p.asset} ${p.size}`).sort(), held, `${account}: positions = engine holdings`);
      for (const p of rows) {
        t.ok(Math.abs(p.initialValue - p.size * p.avgPrice) < 1e-6, `${account} ${p.asset}: initialValue = size × avgPrice`);
        t.ok(Math.abs(p.cashPnl - (p.currentValue - p.initialValue)) < 1e-6);
        t.ok(p.curPrice >= 0 && p.curPrice <= 1);
      }
    }

    const groups = await holders(ctx, { market: MARKETS.map((m) => m.conditionId), minBalance: 0, limit: 500 });
    for (const g of groups) {
      const token = [...tokenMarket].find(([, asset]) => asset === g.token)?.[0] ?? '';
      const expected = ACCOUNTS.map((a) => {
        const h = session.engine.state.ledger.accounts.get(a)?.holdings.get(token);
        return { a, n: (h?.free ?? 0) + (h?.reserved ?? 0) };
      }).filter((x) => x.n > 0).sort((x, y) => y.n - x.n || (x.a < y.a ? -1 : 1));
      t.same(g.holders.map((h) => `${h.proxyWallet} ${h.amount}`), expected.map((x) => `${x.a} ${x.n / 1e6}`), `holders of ${g.token}`);
    }

    t.equal((await activityTrades(ctx, { limit: 10_000 })).length, fills.length, 'takerOnly: one row per fill');
    t.equal((await activityTrades(ctx, { limit: 10_000, takerOnly: false })).length, 2 * fills.length, 'both sides: two rows per fill');

    for (const account of ACCOUNTS) {
      const seen: AccountTrade[] = [];
      let cursor: string | undefined = 'MA==';
      for (let pages = 0; cursor !== 'LTE=' && pages < 1_000; pages++) {
        const page = await accountTrades(ctx, { caller: account, limit: 7, nextCursor: cursor });
        seen.push(...page.data);
        cursor = page.next_cursor;
      }
      const mine = fills.filter((f) => f.taker.account === account || f.maker.account === account).reverse();
      t.same(seen.map((x) => x.id), mine.map((f) => f.tradeId), `${account}: every own fill once, newest first, across pages`);
      t.ok(seen.every((x, i) => x.trader_side === ((mine[i]?.taker.account === account) ? 'TAKER' : 'MAKER')));
    }
  });
}
