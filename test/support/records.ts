// Log records made by the real engine, for log and host tests.

import { Engine, type Command } from '../../engine/index.js';
import type { EventLog, LogRecord } from '../../log/eventLog.js';

export const T0 = 1_700_000_000_000;

/** A deterministic session of `count` commands: a market, deposits, and crossing orders. */
export function sessionCommands(count: number): Command[] {
  const cmds: Command[] = [
    { type: 'ListMarket', time: T0, conditionId: '0xc1', tokenIds: ['101', '102'], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 10, negRisk: false },
    { type: 'Deposit', time: T0, account: '0xa', amount: 1_000_000_000_000 },
    { type: 'Deposit', time: T0, account: '0xb', amount: 1_000_000_000_000 },
  ];
  for (let i = 0; cmds.length < count; i++) {
    const account = i % 2 === 0 ? '0xa' : '0xb';
    const price = 400_000 + ((i * 7919) % 21) * 10_000;
    const qty = (1 + (i % 13)) * 1_000_000;
    const tokenId = i % 3 === 0 ? '102' : '101';
    cmds.push({
      type: 'PlaceOrder', time: T0 + i, orderId: `0x${i.toString(16).padStart(64, '0')}`, account, owner: 'k', tokenId, side: 'BUY',
      makerAmount: (qty / 10_000) * (price / 100), takerAmount: qty, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: T0 + i + 60_000,
    });
  }
  return cmds.slice(0, count);
}

/** Applies commands to a fresh engine and returns the log records, positions from `firstPos`. */
export function recordsFor(commands: readonly Command[], engine = new Engine(), firstPos = 1): LogRecord[] {
  return commands.map((command, i) => ({ pos: firstPos + i, command, events: engine.apply(command) }));
}

/** An event log in memory: enough for the reads of a consumer that follows the log (LogTail). */
export class MemoryLog implements EventLog {
  readonly records: LogRecord[] = [];
  get lastPos(): number {
    return this.records.length;
  }
  async append(records: readonly LogRecord[]): Promise<void> {
    for (const r of records) if (r.pos === this.records.length + 1) this.records.push(r);
  }
  async *read(from: number): AsyncIterable<LogRecord> {
    for (const r of this.records.slice(from - 1)) yield r;
  }
  follow(): AsyncIterable<LogRecord> {
    throw new Error('not used');
  }
  async close(): Promise<void> {}
}
