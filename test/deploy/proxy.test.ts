// The service behind nginx configured as deploy/nginx/nginx.conf configures it (Debian's nginx, installed by
// scripts/compose/nginx.sh when missing; only the upstream addresses and the listening port are rewritten for
// this machine): plain requests reach the service as nginx sends them by default (HTTP/1.0), the official
// client signs in and trades with its POLY_* headers (underscores) through the proxy, the WebSocket
// market channel upgrades through it, and with nginx's address trusted (--trusted-proxies) each client is
// known by its own address (X-Forwarded-For), for the activity allowlist and WebSocket connections per IP,
// while a forged X-Forwarded-For changes nothing. Clients on 127.0.0.2 and 127.0.0.3 (loopback answers for
// all of 127/8) stand for two hosts; nginx reaches the service from 127.0.0.1.

import { ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet } from 'ethers';
import t from 'tap';
import { clientSigner } from '../auth/fixtures.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { WsClient, eventsOf } from '../support/wsClient.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const nginx = execFileSync('bash', ['scripts/compose/nginx.sh'], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop() as string;
const conf = readFileSync(join(root, 'deploy/nginx/nginx.conf'), 'utf8');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const svc = await startTestService({ trustedProxies: ['127.0.0.1'], activityIpAllowlist: ['127.0.0.1/32', '127.0.0.2/32'], wsMaxConnectionsPerIp: 2, wsPort: 0 });
t.teardown(() => svc.close());
const servicePort = svc.service.port;
const channelPort = svc.service.wsPort;
if (channelPort === undefined) throw new Error('the channel port is set');
const port = await freePort();
const prefix = mkdtempSync(join(tmpdir(), 'nginx-'));
// This machine's addresses instead of the compose network's names; both upstreams are the one service here.
const local = conf
  .replace(/server api[12]:8080;/g, `server 127.0.0.1:${servicePort};`)
  .replace(/server api[12]:8081;/g, `server 127.0.0.1:${channelPort};`)
  .replace('listen 80;', `listen 127.0.0.1:${port};`)
  .replace('worker_processes auto;', `worker_processes 1;\npid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log warn;`);
writeFileSync(join(prefix, 'nginx.conf'), local);

const checked = execFileSync(nginx, ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const proxy = spawn(nginx, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'] });
t.teardown(() => {
  proxy.kill('SIGQUIT');
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
  if (up) break;
  if (i > 100) throw new Error(`nginx did not come up; ${readFileSync(join(prefix, 'error.log'), 'utf8')}`);
  await new Promise((r) => setTimeout(r, 100));
}

function id(label: string): string {
  return BigInt('0x' + createHash('sha256').update(label).digest('hex')).toString();
}
const CID = '0x' + createHash('sha256').update('proxy-market').digest('hex');
const [YES, NO] = [id('proxy-yes'), id('proxy-no')];
await svc.service.engine.submit({ type: 'ListMarket', conditionId: CID, tokenIds: [YES, NO], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });

t.test('the proxy configuration: as nginx leaves it, plus what public clients need', async (tt) => {
  const plain = conf.slice(conf.indexOf('location / {'));
  tt.notMatch(plain, /proxy_http_version/, 'plain requests go upstream on nginx\'s default HTTP version (1.0)');
  tt.match(conf, /underscores_in_headers on;/, 'POLY_* headers pass');
  tt.match(conf, /location ~ \^\/\(clob\/\)\?ws\/ \{[^}]*proxy_http_version 1\.1;[^}]*Upgrade \$http_upgrade[^}]*\}/s, 'WebSocket paths are upgraded');
  tt.match(conf, /location ~ \^\/\(clob\/\)\?ws\/ \{\s*proxy_pass http:\/\/api_channels;/, "WebSocket paths go to the API nodes' channel port");
  tt.match(conf, /upstream api_channels \{\s*server api1:8081;\s*server api2:8081;\s*\}/, 'the channel port of each API node');
  tt.match(conf, /server api1:8080;\s*server api2:8080;/, 'both API nodes behind it');
});

t.test('nginx accepts the configuration (nginx -t)', async (tt) => {
  tt.equal(typeof checked, 'string');
});

t.test('plain requests through nginx (HTTP/1.0 upstream)', async (tt) => {
  const health = await fetch(`${base}/health`);
  tt.equal(health.status, 200);
  const book = await fetch(`${base}/clob/book?token_id=${YES}`);
  tt.equal(book.status, 200);
  tt.equal(((await book.json()) as { asset_id: string }).asset_id, YES);
  const bad = await fetch(`${base}/clob/book?token_id=not-a-token`);
  tt.equal(bad.status, 400, 'errors pass through as the service answers them');
});

t.test('the official client signs in and trades through nginx (POLY_* headers)', async (tt) => {
  const wallet = Wallet.createRandom() as unknown as Wallet;
  await svc.service.engine.submit({ type: 'Deposit', account: wallet.address.toLowerCase(), amount: units(100) });
  const signer = clientSigner(wallet) as never;
  const creds = await new ClobClient({ host: `${base}/clob`, chain: 137, signer, throwOnError: true }).createOrDeriveApiKey();
  tt.ok(creds.key, 'L1 sign-in through the proxy');
  const client = new ClobClient({ host: `${base}/clob`, chain: 137, signer, creds, throwOnError: true });
  // With a header of the official client's kind: nginx passes only the upgrade's own headers to the channel port.
  const ws = await WsClient.connect(`ws://127.0.0.1:${port}/ws/market`, { headers: { POLY_ADDRESS: wallet.address } });
  ws.send({ type: 'market', assets_ids: [YES] });
  const snapshot = await ws.next((f) => eventsOf(f).some((e) => e.event_type === 'book'));
  tt.ok(snapshot, 'the market channel upgraded through nginx and sent its snapshot');
  const placed = (await client.createAndPostOrder({ tokenID: YES, price: 0.3, size: 10, side: Side.BUY }, undefined, OrderType.GTC)) as { success: boolean; orderID: string };
  tt.equal(placed.success, true, 'L2-signed order through the proxy');
  tt.equal((await client.getOrder(placed.orderID)).status, 'LIVE');
  const change = await ws.next((f) => eventsOf(f).some((e) => e.event_type === 'price_change'));
  tt.ok(change, 'its price change arrived over the proxied WebSocket');
  ws.close();
});

/** GET from a given local address (a client host of its own), with extra headers. */
function getFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('each client is known by its own address through the trusted proxy', async (tt) => {
  const positions = `/positions?user=0x${'0'.repeat(39)}1`;
  tt.equal((await getFrom('127.0.0.2', base + positions)).status, 200, '127.0.0.2 is on the activity allowlist');
  const refused = await getFrom('127.0.0.3', base + positions);
  tt.equal(refused.status, 403, '127.0.0.3 is not, though nginx (127.0.0.1, allowlisted) carries its request');
  tt.match(refused.body, /ip_not_allowlisted/);
  tt.equal((await getFrom('127.0.0.3', base + positions, { 'X-Forwarded-For': '127.0.0.2' })).status, 403, 'a forged X-Forwarded-For: nginx appends the real peer, which is read first');
  tt.equal((await getFrom('127.0.0.3', `http://127.0.0.1:${servicePort}${positions}`, { 'X-Forwarded-For': '127.0.0.2' })).status, 403, 'straight to the service from an untrusted peer: the header is ignored');

  // WebSocket connections per IP (2 here), counted per client behind the proxy.
  const url = `ws://127.0.0.1:${port}/ws/market`;
  const first = await WsClient.connect(url, { localAddress: '127.0.0.2' });
  const second = await WsClient.connect(url, { localAddress: '127.0.0.2', headers: { 'X-Forwarded-For': '198.51.100.1' } });
  await tt.rejects(WsClient.connect(url, { localAddress: '127.0.0.2', headers: { 'X-Forwarded-For': '198.51.100.2' } }), /upgrade refused: 429/, "127.0.0.2's third connection is refused, forged header or not");
  const other = await WsClient.connect(url, { localAddress: '127.0.0.3' });
  tt.pass('while 127.0.0.3, behind the same proxy, connects');
  for (const ws of [first, second, other]) ws.close();
});
