// Behind the header edge, the channels' output is written by the edge itself (api/http/edge/wsDirect.ts,
// api/ws/edgeSockets.ts): a subscriber on the public port is subscribed at the edge, not in uWS, and still
// receives its snapshot and the changes after it in order; on --ws-port (straight from uWS) the same
// subscription is uWS's. The channels' own suites (wsMarket, wsUser, wsLimits) run through the edge too.

import t from 'tap';
import { Wallet } from 'ethers';
import { startTestService } from '../support/serviceFixture.js';
import { WsClient, eventsOf } from '../support/wsClient.js';
import { Trader } from '../support/tradingClient.js';
import { units } from '../engine/scenario.js';
import { tokenTopic } from '../../api/ws/topics.js';

const svc = await startTestService({ wsPort: 0 });
t.teardown(() => svc.close());
const host = svc.service.engine;
const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5));
if (market === undefined) throw new Error('the demo catalog needs an active market with tick 0.01');
const [token] = market.tokenIds;

t.test('a public-port subscriber is served by the edge; a --ws-port one by uWS; both get the same changes', async (t) => {
  const app = svc.service.http.app;
  const viaEdge = await WsClient.connect(`${svc.baseUrl.replace('http://', 'ws://')}/ws/market`);
  const direct = await WsClient.connect(`ws://127.0.0.1:${svc.service.wsPort}/ws/market`);
  t.teardown(() => {
    viaEdge.close();
    direct.close();
  });
  for (const client of [viaEdge, direct]) {
    client.send({ type: 'market', assets_ids: [token] });
    await client.next((f) => eventsOf(f).some((e) => e.event_type === 'book'));
  }
  t.equal(app.numSubscribers(tokenTopic(token)), 0, "the public port's subscriber is not uWS's");

  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(100) });
  const res = await trader.postOrder(await trader.signOrder({ side: 'BUY', tokenId: token, makerAmount: units(2), takerAmount: units(10) }));
  t.equal(res.status, 200);
  const [a, b] = await Promise.all([viaEdge, direct].map((c) => c.next((f) => eventsOf(f).some((e) => e.event_type === 'price_change'))));
  t.same(a, b, 'the same price_change frame on both');
});
