// `npm start` until the HTTP service exists: loads the configuration (so bad settings are reported as they
// will be by the service), then drives the matching engine through a short fixed script and prints the
// books, the trades, the invariant check and the state hash. Fixed times and ids make the output, state
// hash included, the same on every run.

import { loadConfigOrExit } from '../config/index.js';
import { Engine, formatUnits, type Command, type EngineEvent, type PlaceOrder, type Side, type TradeExecuted } from '../engine/index.js';

const config = loadConfigOrExit();
console.log('The HTTP service is not built yet: this is a demo of the matching engine alone (no server, no files written).');
console.log(`Configuration loaded and valid (fee account ${config.feeAccount}, GTD margin ${config.gtdSecurityMarginSec} s).\n`);

const engine = new Engine({ feeAccount: config.feeAccount, gtdSecurityMarginSec: config.gtdSecurityMarginSec });
const T0 = Date.UTC(2026, 0, 1);
const USDC = 1_000_000;
const CENT = 10_000; // 0.01 in price units
const accounts = { alice: '0x00000000000000000000000000000000000a11ce', bob: '0x0000000000000000000000000000000000000b0b', carol: '0x00000000000000000000000000000000000ca201', dave: '0x000000000000000000000000000000000000da7e' };
type Who = keyof typeof accounts;

const markets = [
  { name: 'Rain in Lisbon on 2 Jan?', conditionId: '0x' + '01'.repeat(32), tokenIds: ['1001', '1002'] as const, takerFeeBps: 0 },
  { name: 'Team A wins the final?', conditionId: '0x' + '02'.repeat(32), tokenIds: ['2001', '2002'] as const, takerFeeBps: 100 },
];
const [rain, final] = markets as [(typeof markets)[0], (typeof markets)[0]];

let clock = T0;
let orders = 0;
const events: EngineEvent[] = [];

type Untimed<C = Command> = C extends Command ? Omit<C, 'time'> : never;

function run(cmd: Untimed): void {
  clock += 1000;
  const out = engine.apply({ ...cmd, time: clock } as Command);
  events.push(...out);
  const refused = out.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined && 'message' in refused) throw new Error(`demo command refused: ${refused.message}`);
}

/** A GTC limit order of `shares` at `cents` (price in the order's own token, 6-decimal base units). */
function limit(who: Who, tokenId: string, side: Side, shares: number, cents: number): void {
  const size = shares * USDC;
  const price = cents * CENT;
  const cash = (size * price) / 1_000_000;
  orders += 1;
  const order: Untimed<PlaceOrder> = {
    type: 'PlaceOrder',
    orderId: '0x' + orders.toString(16).padStart(64, '0'),
    account: accounts[who],
    owner: who,
    tokenId,
    side,
    makerAmount: side === 'BUY' ? cash : size,
    takerAmount: side === 'BUY' ? size : cash,
    orderType: 'GTC',
    postOnly: false,
    expiration: 0,
    dedupeUntil: clock + 60_000,
  };
  run(order);
}

for (const m of markets) {
  run({ type: 'ListMarket', conditionId: m.conditionId, tokenIds: [m.tokenIds[0], m.tokenIds[1]], tickSize: CENT, minSize: 5 * USDC, makerFeeBps: 0, takerFeeBps: m.takerFeeBps, negRisk: false });
}
for (const who of Object.keys(accounts) as Who[]) run({ type: 'Deposit', account: accounts[who], amount: 1000 * USDC });
run({ type: 'Split', account: accounts.carol, conditionId: rain.conditionId, amount: 100 * USDC });

limit('alice', rain.tokenIds[0], 'BUY', 100, 45);
limit('alice', rain.tokenIds[0], 'BUY', 50, 44);
limit('carol', rain.tokenIds[0], 'SELL', 80, 52);
limit('carol', rain.tokenIds[0], 'SELL', 20, 55);
limit('dave', rain.tokenIds[1], 'BUY', 40, 50); // buying NO at 0.50 rests as a YES ask at 0.50
limit('bob', rain.tokenIds[0], 'BUY', 60, 53); // crosses: 40 minted against dave, 20 bought from carol
limit('bob', final.tokenIds[0], 'BUY', 30, 30);
limit('alice', final.tokenIds[0], 'BUY', 10, 25);
limit('dave', final.tokenIds[1], 'BUY', 30, 70); // crosses bob's bid: a mint at 0.30, 1% taker fee

const levels = (side: { price: number; size: number }[]): string => (side.length === 0 ? '(empty)' : side.map((l) => `${formatUnits(l.size)} @ ${formatUnits(l.price)}`).join(', '));
for (const m of markets) {
  console.log(`Market "${m.name}" (${m.conditionId.slice(0, 10)}...)`);
  m.tokenIds.forEach((tokenId, outcome) => {
    const book = engine.book(tokenId);
    console.log(`  ${outcome === 0 ? 'YES' : 'NO '} token ${tokenId}: bids ${levels(book?.bids ?? [])} | asks ${levels(book?.asks ?? [])}`);
  });
}

const trades = events.filter((e): e is TradeExecuted => e.type === 'TradeExecuted');
console.log(`\nTrades (${trades.length}, price in the YES token):`);
const name = (address: string): string => Object.entries(accounts).find(([, a]) => a === address)?.[0] ?? address;
for (const tr of trades) {
  const fee = tr.taker.fee === 0 ? '' : `, taker fee ${formatUnits(tr.taker.fee)} ${tr.taker.side === 'BUY' ? 'tokens' : 'USDC'}`;
  console.log(`  #${tr.seq} ${tr.kind.padEnd(6)} ${formatUnits(tr.size)} @ ${formatUnits(tr.price)}: taker ${name(tr.taker.account)} ${tr.taker.side} ${tr.taker.outcome === 0 ? 'YES' : 'NO'}, maker ${name(tr.maker.account)} ${tr.maker.side} ${tr.maker.outcome === 0 ? 'YES' : 'NO'}${fee}`);
}

const broken = engine.checkInvariants();
console.log(`\nInvariants: ${broken.length === 0 ? 'all hold' : broken.join('; ')}`);
console.log(`State hash after ${engine.seq} events: ${engine.stateHash()}`);
if (broken.length > 0) process.exitCode = 1;
