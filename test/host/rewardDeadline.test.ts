// The engine host's deadline timer serves the rewards sampler too: with a market rewarded, AdvanceTime is
// submitted at the next minute of the host clock (a quiet book is still sampled) and at midnight (the day is
// paid), into the journal like any command; restarted from the journal, the engine holds the same state.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type EngineEvent } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';

const DAY1 = 19_677 * 86_400_000;
const MAKER = '0xa000000000000000000000000000000000000001';
const CID = '0xc1d';

async function records(journal: Journal): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of journal.read(1)) out.push(r);
  return out;
}

const waitFor = async (test: () => boolean, ms = 3000): Promise<void> => {
  const until = Date.now() + ms;
  while (!test() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
};

t.test('AdvanceTime at the next minute and at midnight; the journal replays to the same state', async (t) => {
  const journal = await Journal.open({ dir: join(mkdtempSync(join(tmpdir(), 'reward-host-')), 'journal'), segmentBytes: 1 << 20 });
  let now = DAY1 - 61_000;
  const host = new EngineHost(new Engine(), journal, { maxBatch: 100, clock: () => now });
  const setup: Submission[] = [
    { type: 'ListMarket', conditionId: CID, tokenIds: ['11', '12'], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false },
    { type: 'Deposit', account: MAKER, amount: 1_000_000_000 },
    { type: 'Split', account: MAKER, conditionId: CID, amount: 100_000_000 },
    { type: 'PlaceOrder', orderId: '0x01', account: MAKER, owner: 'k', tokenId: '11', side: 'BUY', makerAmount: 49_000_000, takerAmount: 100_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: DAY1 },
    { type: 'PlaceOrder', orderId: '0x02', account: MAKER, owner: 'k', tokenId: '11', side: 'SELL', makerAmount: 100_000_000, takerAmount: 51_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: DAY1 },
    { type: 'SetMarketRewards', conditionId: CID, dailyRate: 1_440_000_000, maxSpread: 30_000, minSize: 0 },
  ];
  for (const s of setup) await host.submit(s);
  t.equal(host.engine.nextRewardSample(), DAY1 - 60_000);

  // The minute before midnight: the timer fires 40 ms from now, when the clock reads the minute.
  now = DAY1 - 60_040;
  host.watchDeadlines();
  now = DAY1 - 60_000;
  await waitFor(() => journal.lastPos > setup.length);
  const sampled = (await records(journal)).at(-1) as LogRecord;
  t.match(sampled.command, { type: 'AdvanceTime', time: DAY1 - 60_000 });
  t.match(sampled.events, [{ type: 'RewardsSampled', at: DAY1 - 60_000, samples: 1 }]);

  // Midnight: the host arms the next minute, which is the new day's first; the day's minute of $1,440 pays $1.
  host.unwatchDeadlines();
  now = DAY1 - 30;
  host.watchDeadlines();
  now = DAY1;
  await waitFor(() => journal.lastPos > setup.length + 1);
  const paid = (await records(journal)).at(-1) as LogRecord;
  host.unwatchDeadlines();
  t.match(paid.command, { type: 'AdvanceTime', time: DAY1 });
  const events = paid.events as EngineEvent[];
  t.match(events.map((e) => e.type), ['RewardsDistributed', 'RewardPaid', 'RewardsSampled']);
  t.match(events[1], { type: 'RewardPaid', account: MAKER, amount: 1_000_000, day: '2023-11-15' });

  const replayed = new Engine();
  for (const r of await records(journal)) replayed.apply(r.command);
  t.equal(replayed.stateHash(), host.engine.stateHash(), 'the journal replays to the same state');
  await journal.close();
});
