// POST /order compares its request's L2 HMAC on the signature worker, beside the order's signature, instead of in
// its guard (api/trading/authenticate.ts requireL2 with deferMac). The answers must be those of a guard that
// compares it first: a request whose HMAC does not match is the same 401 whatever else is wrong with it (and
// nothing moves), and one whose HMAC matches gets the refusal its body earns. Both with the signature worker and
// with the checks inline (--signature-workers 0), over real HTTP.

import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader, type Answer } from '../support/tradingClient.js';

const MAC_REFUSAL = 'Unauthorized/Invalid api key: POLY_SIGNATURE does not match: sign timestamp + METHOD + path (no query) + body with the base64url-decoded secret';

for (const signatureWorkers of [1, 0]) {
  t.test(`signature checks ${signatureWorkers === 0 ? 'inline' : 'on a worker'}`, async (tt) => {
    const svc = await startTestService({ signatureWorkers });
    tt.teardown(() => svc.close());
    const host = svc.service.engine;
    const engine = host.engine;
    const M = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
    const funded = async (): Promise<Trader> => {
      const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
      await trader.signIn();
      await host.submit({ type: 'Deposit', account: trader.account, amount: units(1000) });
      return trader;
    };
    const trader = await funded();
    const other = await funded();
    const key = trader.requireCreds().apiKey;
    const buy = { side: 'BUY' as const, makerAmount: 1_000_000, takerAmount: units(5), tokenId: M.tokenIds[0] as string };
    const order = await trader.signOrder(buy);
    const sig = String(order.signature);
    const bodies: readonly [string, string, number, RegExp][] = [
      ['not JSON', '{oops', 400, /^Invalid order payload/],
      ['a body the schema refuses', JSON.stringify({ order: { ...order, side: 'SIDEWAYS' }, owner: key, orderType: 'GTC' }), 400, /^Invalid order payload/],
      ["another key's owner", JSON.stringify({ order, owner: other.requireCreds().apiKey, orderType: 'GTC' }), 400, /the order owner has to be the owner of the API KEY/],
      ["another account's order", JSON.stringify({ order: await other.signOrder(buy), owner: key, orderType: 'GTC' }), 400, /the order signer address has to be the address of the API KEY/],
      ['a signature that does not recover', JSON.stringify({ order: { ...order, signature: sig.slice(0, 10) + (sig[10] === 'a' ? 'b' : 'a') + sig.slice(11) }, owner: key, orderType: 'GTC' }), 400, /invalid order signature/],
      ['a signature that is not hex', JSON.stringify({ order: { ...order, signature: '0x' + 'zz'.repeat(65) }, owner: key, orderType: 'GTC' }), 400, /Invalid order payload/],
      ['a stale order timestamp', JSON.stringify({ order: await trader.signOrder({ ...buy, timestamp: Date.now() - 3_600_000 }), owner: key, orderType: 'GTC' }), 400, /Timestamp/],
      ['a good order', JSON.stringify({ order, owner: key, orderType: 'GTC' }), 200, /^$/],
    ];

    const expect = async (what: string, status: number, text: RegExp | string, act: () => Promise<Answer>): Promise<void> => {
      const release = await holdTimedCommands(host);
      try {
        const before = engine.stateHash();
        const res = await act();
        tt.equal(res.status, status, `${what}: status`);
        const error = (res.body as { error?: string }).error ?? '';
        if (typeof text === 'string') tt.equal(error, text, `${what}: message`);
        else tt.match(error, text, `${what}: message`);
        if (status !== 200) {
          await host.idle();
          tt.equal(engine.stateHash(), before, `${what}: nothing moved`);
        }
      } finally {
        release();
      }
    };

    for (const [what, body, status, text] of bodies) {
      // Signed over another body: the HMAC does not match this one.
      const forged = trader.l2Headers('POST', '/order', body + ' ');
      await expect(`${what}, HMAC of another body`, 401, MAC_REFUSAL, () => trader.request('POST', '/order', { headers: forged, body }));
      // Signed with another secret.
      const wrongSecret = trader.l2Headers('POST', '/order', body, { ...trader.requireCreds(), secret: Buffer.alloc(32, 9).toString('base64url') });
      await expect(`${what}, HMAC under another secret`, 401, MAC_REFUSAL, () => trader.request('POST', '/order', { headers: wrongSecret, body }));
      // A query string: the HMAC is compared in the guard, as every other route does.
      await expect(`${what}, with a query, HMAC of another body`, 401, MAC_REFUSAL, () => trader.request('POST', '/order?x=1', { headers: forged, body }));
      await expect(`${what}, the right HMAC`, status, text, () => trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', body), body }));
    }
    tt.equal(engine.openOrders(trader.account).length, 1, 'only the good order with the right HMAC rests');

    // Builder headers that do not verify: with a bad L2 HMAC the L2 refusal comes first, as it did in the guard.
    const body = JSON.stringify({ order: await trader.signOrder(buy), owner: key, orderType: 'GTC' });
    const builder = { POLY_BUILDER_API_KEY: 'not-a-key', POLY_BUILDER_PASSPHRASE: 'x', POLY_BUILDER_TIMESTAMP: String(Math.floor(Date.now() / 1000)), POLY_BUILDER_SIGNATURE: 'x' };
    await expect('bad builder headers, HMAC of another body', 401, MAC_REFUSAL, () => trader.request('POST', '/order', { headers: { ...trader.l2Headers('POST', '/order', body + ' '), ...builder }, body }));
    await expect('bad builder headers, the right HMAC', 401, /^Unauthorized\/Invalid builder api key/, () => trader.request('POST', '/order', { headers: { ...trader.l2Headers('POST', '/order', body), ...builder }, body }));

    // Many at once (one signature batch), forged and genuine interleaved: each gets its own answer.
    const genuine = await Promise.all(Array.from({ length: 6 }, (_, i) => trader.signOrder({ ...buy, makerAmount: 1_000_000 + i * 50_000 })));
    const answers = await Promise.all(
      genuine.map((o, i) => {
        const text = JSON.stringify({ order: o, owner: key, orderType: 'GTC' });
        return trader.request('POST', '/order', { headers: trader.l2Headers('POST', '/order', i % 2 === 0 ? text : text + ' '), body: text });
      }),
    );
    tt.same(answers.map((a) => a.status), [200, 401, 200, 401, 200, 401], `a batch of checks: forged ones refused, genuine ones placed (${answers.map((a) => a.text).join(' | ')})`);
    for (const a of answers.filter((x) => x.status === 401)) tt.equal((a.body as { error: string }).error, MAC_REFUSAL);
    tt.equal(engine.openOrders(trader.account).length, 4);
  });
}
