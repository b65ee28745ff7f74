// Read-your-writes of the trade reads without the projector: with the projector pausing 10 s between
// commits (and nobody waiting for it), a trade POST /order made is at once in GET /data/trades and
// GET /activity/trades?user= for both of its accounts, answered from the in-memory read model while
// ClickHouse does not hold it yet. A page reaching past the window kept in memory waits for ClickHouse.

import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';

const svc = await startTestService({ projectionIntervalMs: 10_000, liveAccountFills: 2 });
t.teardown(() => svc.close());
const host = svc.service.engine;
const projector = svc.service.projector;

const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
const [token] = market.tokenIds;

async function funded(split: boolean): Promise<Trader> {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, { headerStyle: 'hyphen' });
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(1000) });
  if (split) await host.submit({ type: 'Split', account: trader.account, conditionId: market.conditionId, amount: units(100) });
  return trader;
}

async function place(trader: Trader, side: 'BUY' | 'SELL', orderType: 'GTC' | 'FOK'): Promise<{ orderID: string; tradeIDs: string[] }> {
  const terms = side === 'BUY' ? { side, makerAmount: units(2), takerAmount: units(5), tokenId: token } : { side, makerAmount: units(5), takerAmount: units(2), tokenId: token };
  const res = await trader.postOrder(await trader.signOrder(terms), orderType);
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  return res.body as { orderID: string; tradeIDs: string[] };
}

/** Until the projector holds every command so far: it then pauses 10 s before its next commit. */
async function projectorCaughtUp(): Promise<void> {
  while (projector.position < host.position) await new Promise((resolve) => setTimeout(resolve, 10));
}

t.test('a trade is readable at once from memory while the projector pauses', async (t) => {
  const buyer = await funded(false);
  const seller = await funded(true);
  await place(buyer, 'BUY', 'GTC');
  await projectorCaughtUp();
  const hit = await place(seller, 'SELL', 'FOK');
  const [tradeId] = hit.tradeIDs as [string];
  const trades = async (trader: Trader): Promise<string[]> => ((await trader.l2('GET', '/data/trades')).body as { data: { id: string }[] }).data.map((x) => x.id);
  const activity = async (trader: Trader): Promise<string[]> => ((await (await fetch(`${svc.baseUrl}/activity/trades?user=${trader.account}&takerOnly=false`)).json()) as { transactionHash: string; proxyWallet: string }[]).map((x) => x.proxyWallet);
  t.same(await trades(seller), [tradeId], 'the taker sees its trade');
  t.same(await trades(buyer), [tradeId], 'and the maker');
  t.same(await activity(seller), [seller.account]);
  t.same(await activity(buyer), [buyer.account]);
  t.ok(projector.position < host.position, `answered from memory: the projector is still at ${projector.position}, the log at ${host.position}`);
});

t.test('a page past the window kept in memory is ClickHouse\'s, after waiting for the projector', async (t) => {
  const buyer = await funded(false);
  const seller = await funded(true);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    await place(buyer, 'BUY', 'GTC');
    ids.unshift(...(await place(seller, 'SELL', 'FOK')).tradeIDs);
  }
  const first = await seller.l2('GET', '/data/trades', undefined, '?next_cursor=MA==');
  t.same((first.body as { data: { id: string }[] }).data.map((x) => x.id), ids, 'three trades, two of them in memory: the page reaches past the window');
  t.ok(projector.position >= host.position, 'the read waited for the projector');
});
