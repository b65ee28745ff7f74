// The golden replay: a fixed command log (a hand-written scenario with every kind of match and order type,
// then a fixed-seed generated session) with the events it must produce and the final state hash. Any change
// to engine behaviour shows here as a diff. Regenerate deliberately with UPDATE_GOLDEN=1 and review the diff.

import t from 'tap';
import fc from 'fast-check';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { Engine, type Command, type EngineEvent } from '../../engine/index.js';
import { genesis, opsArb, toCommands } from './modelCommands.js';
import { CID, NO, T0, YES, buy, cancel, deposit, listMarket, order, sell, split, units } from './scenario.js';

const FILE = new URL('../golden/engine-replay.json', import.meta.url);

interface Golden {
  readonly commands: Command[];
  readonly events: EngineEvent[];
  readonly finalStateHash: string;
}

function handWritten(): Command[] {
  return [
    listMarket({ makerFeeBps: 10, takerFeeBps: 100 }),
    deposit('alice', 1000), deposit('bob', 1000), deposit('carol', 1000),
    split('alice', 100),
    sell('a-ask', 'alice', YES, 20, 0.55),
    buy('b-normal', 'bob', YES, 10, 0.6),
    buy('c-no-bid', 'carol', NO, 30, 0.4),
    buy('b-mint', 'bob', YES, 40, 0.62),
    sell('a-no-ask', 'alice', NO, 10, 0.5),
    sell('b-merge', 'bob', YES, 10, 0.45),
    buy('c-gtd', 'carol', YES, 10, 0.2, { orderType: 'GTD', expiration: T0 / 1000 + 200 }),
    buy('c-fok', 'carol', YES, 500, 0.99, { orderType: 'FOK' }),
    order('BUY', 'c-fak', 'carol', YES, units(5), units(50), { orderType: 'FAK' }),
    buy('b-post', 'bob', YES, 10, 0.3, { postOnly: true }),
    cancel('b-post', 'bob'),
    { type: 'AdvanceTime', time: T0 + 200_000 },
    { type: 'UpdateMarket', time: T0 + 200_000, conditionId: CID, tickSize: 1_000 },
    { type: 'Merge', time: T0 + 200_000, account: 'alice', conditionId: CID, amount: units(5) },
    { type: 'ResolveMarket', time: T0 + 300_000, conditionId: CID, winningOutcome: 1 },
    { type: 'Redeem', time: T0 + 300_000, account: 'carol', conditionId: CID },
    { type: 'Redeem', time: T0 + 300_000, account: 'bob', conditionId: CID },
    { type: 'Withdraw', time: T0 + 300_000, account: 'carol', amount: units(10) },
  ];
}

function generated(): Command[] {
  const [ops] = fc.sample(opsArb(400), { seed: 20261121, numRuns: 1 });
  return [...genesis(), ...toCommands(ops ?? [])];
}

function run(commands: readonly Command[]): { events: EngineEvent[]; hash: string } {
  const engine = new Engine();
  const events: EngineEvent[] = [];
  for (const cmd of commands) events.push(...engine.apply(cmd));
  return { events, hash: engine.stateHash() };
}

/** One command or event per line, so diffs of the golden file are readable. */
function render(golden: Golden): string {
  const list = (items: readonly unknown[]): string => `[\n${items.map((x) => '    ' + JSON.stringify(x)).join(',\n')}\n  ]`;
  return `{\n  "finalStateHash": ${JSON.stringify(golden.finalStateHash)},\n  "commands": ${list(golden.commands)},\n  "events": ${list(golden.events)}\n}\n`;
}

if (process.env.UPDATE_GOLDEN === '1' || !existsSync(FILE)) {
  const commands = [...handWritten(), ...generated().map((c) => ({ ...c, time: c.time + 400_000 }))];
  const { events, hash } = run(commands);
  writeFileSync(FILE, render({ commands, events, finalStateHash: hash }));
  t.comment('golden file written: review the diff before committing');
}

t.test('the golden command log gives exactly the golden events and state hash', async (t) => {
  const golden = JSON.parse(readFileSync(FILE, 'utf8')) as Golden;
  t.ok(golden.commands.length > 300, `${golden.commands.length} commands`);
  const { events, hash } = run(golden.commands);
  t.equal(events.length, golden.events.length, 'same number of events');
  const firstDiff = events.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(golden.events[i]));
  t.equal(firstDiff, -1, firstDiff === -1 ? 'every event equal' : `first differing event at ${firstDiff}: ${JSON.stringify(events[firstDiff])}`);
  t.equal(hash, golden.finalStateHash, 'final state hash');
  const kinds = new Set(golden.events.map((e) => (e.type === 'TradeExecuted' ? `${e.type}:${e.kind}` : e.type)));
  for (const k of ['TradeExecuted:normal', 'TradeExecuted:mint', 'TradeExecuted:merge', 'OrderExpired', 'MarketResolved', 'PositionRedeemed', 'OrderRejected']) t.ok(kinds.has(k), `covers ${k}`);
});
