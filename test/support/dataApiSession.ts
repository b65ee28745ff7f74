// A trading session made by the real engine for the Data API's end-to-end tests: commands submitted to the
// running service's engine host (real clock, a few ms between commands), then the projector caught up, so
// every read (in memory and ClickHouse) sees all of it. On three fee-free demo markets M1, M2, M3:
//   M1  bob splits 100; bob SELL 10 @0.40 rests, alice BUY 10 takes it           (normal fill)
//       carol BUY 10 NO @0.55 rests, alice BUY 10 YES @0.45 takes it            (mint fill)
//       alice SELL 5 @0.60 rests, dave BUY 5 takes it                           (normal; builder code on dave's)
//       carol SELL 5 NO @0.50 rests, alice SELL 5 YES @0.50 takes it            (merge fill)
//       bob merges 20
//   M2  bob splits 10; bob SELL 5 @0.25 rests, carol BUY 5 takes it; M2 resolves for outcome 0; carol and
//       bob redeem
//   M3  alice BUY 10 @0.50 from dave (who split 20), then SELL 10 @0.70 to carol: closed with 2 realised
// Each of alice, bob, carol and dave deposited 1,000 USDC first.

import type { EngineEvent } from '../../engine/index.js';
import type { Submission } from '../../host/engineHost.js';
import { buy, sell, units } from '../engine/scenario.js';
import type { TestService } from './serviceFixture.js';

const addr = (hex2: string): string => '0x' + hex2.repeat(20);

export const ALICE = addr('a1');
export const BOB = addr('b0');
export const CAROL = addr('c4');
export const DAVE = addr('da');
/** A wallet that never traded. */
export const NOBODY = addr('ee');
/** The builder code on dave's M1 buy and alice's M3 buy. */
export const CODE = '0x' + 'be'.repeat(32);

export interface DataApiSession {
  readonly M1: string;
  readonly M2: string;
  readonly M3: string;
  /** The catalog event of M1. */
  readonly EVENT1: string;
  /** Each wallet's deposits, in base units. */
  readonly deposits: ReadonlyMap<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Plays the session on `svc` and waits until the projector has it all. */
export async function playDataApiSession(svc: TestService): Promise<DataApiSession> {
  const host = svc.service.engine;
  const candidates = [...host.engine.markets()].filter(
    (m) => m.status === 'active' && m.params.takerFeeBps === 0 && m.params.makerFeeBps === 0 && m.params.minSize <= units(5) && !m.params.negRisk && units(0.05) % m.params.tickSize === 0,
  );
  if (candidates.length < 3) throw new Error(`the demo catalog handed too few fee-free markets to the engine (${candidates.length})`);
  const [m1, m2, m3] = candidates as [(typeof candidates)[0], (typeof candidates)[0], (typeof candidates)[0]];
  const [M1, M2, M3] = [m1.conditionId, m2.conditionId, m3.conditionId];
  const [Y1, N1] = m1.tokenIds;
  const [Y2] = m2.tokenIds;
  const [Y3] = m3.tokenIds;

  let orderSeq = 0;
  const oid = (): string => `0xda7a${(orderSeq += 1)}`;
  const submit = async (command: Submission): Promise<EngineEvent[]> => {
    const events = await host.submit(command);
    const refused = events.filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
    if (refused.length > 0) throw new Error(`the engine refused ${command.type}: ${JSON.stringify(refused)}`);
    await sleep(3);
    return events;
  };

  const deposits = new Map<string, number>();
  for (const a of [ALICE, BOB, CAROL, DAVE]) {
    await submit({ type: 'Deposit', account: a, amount: units(1_000) });
    deposits.set(a, units(1_000));
  }
  await submit({ type: 'Split', account: BOB, conditionId: M1, amount: units(100) });
  await submit(sell(oid(), BOB, Y1, 10, 0.4));
  await submit(buy(oid(), ALICE, Y1, 10, 0.4));
  await submit(buy(oid(), CAROL, N1, 10, 0.55));
  await submit(buy(oid(), ALICE, Y1, 10, 0.45));
  await submit(sell(oid(), ALICE, Y1, 5, 0.6));
  await submit({ ...buy(oid(), DAVE, Y1, 5, 0.6), builder: CODE });
  await submit(sell(oid(), CAROL, N1, 5, 0.5));
  await submit(sell(oid(), ALICE, Y1, 5, 0.5));
  await submit({ type: 'Merge', account: BOB, conditionId: M1, amount: units(20) });
  await submit({ type: 'Split', account: BOB, conditionId: M2, amount: units(10) });
  await submit(sell(oid(), BOB, Y2, 5, 0.25));
  await submit(buy(oid(), CAROL, Y2, 5, 0.25));
  await submit({ type: 'Split', account: DAVE, conditionId: M3, amount: units(20) });
  await submit(sell(oid(), DAVE, Y3, 10, 0.5));
  await submit({ ...buy(oid(), ALICE, Y3, 10, 0.5), builder: CODE });
  await submit(buy(oid(), CAROL, Y3, 10, 0.7));
  await submit(sell(oid(), ALICE, Y3, 10, 0.7));
  await submit({ type: 'ResolveMarket', conditionId: M2, winningOutcome: 0 });
  await submit({ type: 'Redeem', account: CAROL, conditionId: M2 });
  await submit({ type: 'Redeem', account: BOB, conditionId: M2 });
  await host.idle();
  await svc.service.projector.waitFor(host.position);

  const EVENT1 = (await svc.service.reads.metadata([M1])).get(M1)?.eventId ?? '';
  if (EVENT1 === '') throw new Error('M1 has no catalog event');
  return { M1, M2, M3, EVENT1, deposits };
}
