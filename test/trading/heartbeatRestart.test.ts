// Heartbeats across a crash: a trader's bot (the official client, unchanged) heartbeats every second while the
// service is SIGKILLed and started again on the same data directory and port. The session is in the log and the
// snapshot, so the restarted engine knows it, the bot's next heartbeat carries an id the engine still expects,
// and its orders are never cancelled, even once the deadline the session had at the crash has passed.

import { ClobClient, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { Wallet } from 'ethers';
import t from 'tap';
import { clientSigner } from '../auth/fixtures.js';
import { dataDir, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { Trader } from '../support/tradingClient.js';

const WINDOW_SEC = 15;
const OPERATOR = 'operator-token-for-heartbeat-tests';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

const dir = dataDir('heartbeat-restart');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let proc: ServiceProcess | undefined;
t.teardown(async () => {
  await proc?.kill('SIGKILL');
});

async function start(): Promise<void> {
  proc = startServiceProcess(
    ['--data-dir', dir, '--http-port', String(port), '--operator-token', OPERATOR, '--demo-traders=false', '--signature-workers', '0', '--heartbeat-timeout-sec', String(WINDOW_SEC), '--log-level', 'info'],
    'service',
  );
  await proc.waitFor((l) => l.msg === 'listening', 120_000);
}

async function operator(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

function hex(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

await start();
const conditionId = `0x${hex('heartbeat-restart-market')}`;
const YES = BigInt(`0x${hex('heartbeat-restart-yes')}`).toString();
await operator('/operator/markets', { conditionId, tokenIds: [YES, BigInt(`0x${hex('heartbeat-restart-no')}`).toString()] });
const wallet = Wallet.createRandom() as unknown as Wallet;
const trader = new Trader(base, wallet);
const creds = (await trader.signIn()) as unknown as { apiKey: string; secret: string; passphrase: string };
await operator('/operator/deposit', { address: trader.address, amount: '100' });
const apiCreds: ApiKeyCreds = { key: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase };
const bot = new ClobClient({ host: `${base}/clob`, chain: 137, signer: clientSigner(wallet) as never, creds: apiCreds, throwOnError: false });

t.test('a bot that keeps heartbeating across a SIGKILL and restart keeps its orders', async (t) => {
  const placed = await trader.postOrder(await trader.signOrder({ side: 'BUY', makerAmount: 2_000_000, takerAmount: 10_000_000, tokenId: YES }));
  t.equal(placed.status, 200, 'the order rests');
  const orderId = (placed.body as { orderID: string }).orderID;

  // The bot's loop: one heartbeat a second with the last id it was given; a failed call keeps the id.
  let id = '';
  let lastAccepted = 0;
  let refused = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = (await bot.postHeartbeat(id).catch(() => undefined)) as { heartbeat_id?: string; status?: number | string } | undefined;
      if (typeof answer?.heartbeat_id === 'string' && answer.status === 'ok') {
        id = answer.heartbeat_id;
        lastAccepted = Date.now();
      } else if (answer?.status === 400) refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  t.teardown(() => {
    running = false;
  });
  while (lastAccepted === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 2500));

  const killedAt = Date.now();
  const deadlineAtKill = lastAccepted + WINDOW_SEC * 1000;
  await proc?.kill('SIGKILL');
  await start();
  t.ok(Date.now() < deadlineAtKill, `restarted before the session's deadline (${Date.now() - killedAt} ms down)`);

  // Past the deadline the session had when the service died, heartbeats still flowing.
  while (Date.now() < deadlineAtKill + 3000) await new Promise((resolve) => setTimeout(resolve, 250));
  t.ok(lastAccepted > killedAt, 'heartbeats were accepted after the restart');
  t.equal(refused, 0, 'no heartbeat was refused: the restarted engine expected the bot\'s id');
  const order = (await trader.l2('GET', `/data/order/${orderId}`)).body as { status: string };
  t.equal(order.status, 'LIVE', 'the order is still open');
  running = false;
  await loop;
});
