// The user channel across a restart: an order placed before the service stopped is still open after it
// starts again on the same data directory and ClickHouse database, and its events then carry the order's
// real creation time (the engine's snapshot keeps none; the publisher takes it from the in-memory read model,
// or from the projector's state with --live-reads false), equal to GET /data/order/{id}'s created_at.

import t from 'tap';
import { Wallet } from 'ethers';
import { pino } from 'pino';
import type { Config } from '../../config/index.js';
import type { ClickHouseClient } from '../../storage/clickhouse.js';
import type { Market } from '../../engine/market.js';
import { startService, type RunningService } from '../../server/service.js';
import { units } from '../engine/scenario.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { eventsOf, WsClient } from '../support/wsClient.js';

async function start(config: Config, ch: ClickHouseClient): Promise<{ service: RunningService; baseUrl: string }> {
  const service = await startService(config, pino({ level: 'silent' }), { clickhouse: ch });
  return { service, baseUrl: `http://127.0.0.1:${service.port}` };
}

for (const liveReads of [true, false]) {
  t.test(`an order open across a restart keeps its created_at (--live-reads ${liveReads})`, async (t) => {
    const { ch, db } = await freshDatabase();
    const config = testConfig({ clickhouseDatabase: db, liveReads });
    const first = await start(config, ch);
    const engine = first.service.engine.engine;
    const market = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
    const trader = new Trader(first.baseUrl, Wallet.createRandom() as unknown as Wallet);
    await trader.signIn();
    await first.service.engine.submit({ type: 'Deposit', account: trader.account, amount: units(100) });
    const res = await trader.postOrder(await trader.signOrder({ side: 'BUY', makerAmount: 4_000_000, takerAmount: units(10), tokenId: market.tokenIds[0] }));
    t.equal(res.status, 200, 'the order is placed');
    const orderId = (res.body as { orderID: string }).orderID;
    await first.service.close();

    const second = await start(config, ch);
    t.teardown(() => second.service.close());
    const again = new Trader(second.baseUrl, trader.wallet);
    again.creds = trader.creds;
    const rest = (await again.l2('GET', `/data/order/${orderId}`)).body as Record<string, unknown>;
    t.equal(rest.status, 'LIVE', 'the order is still open after the restart');
    t.ok(Number(rest.created_at) > 0, 'the read model knows its creation time');

    const client = await WsClient.connect(`${second.baseUrl.replace('http://', 'ws://')}/ws/user`);
    t.teardown(() => client.close());
    client.send({ auth: again.requireCreds(), type: 'user' });
    client.send('PING');
    await client.next((f) => f === 'PONG');
    t.equal((await again.l2('DELETE', '/order', { orderID: orderId })).status, 200);
    const cancelled = (await client.next((f) => eventsOf(f).some((e) => e.event_type === 'order' && e.id === orderId))) as Record<string, unknown>;
    t.match(cancelled, { type: 'CANCELLATION', status: 'CANCELED' });
    t.equal(cancelled.created_at, String(rest.created_at), 'created_at: the order\'s creation, as GET /data/order gives it');
  });
}
