// What the demo traders need of the venue besides its public API: the markets the engine lists (to quote them
// and to know when one stops trading), a trader's balances (to top it up) and the operator's funding commands
// (Deposit, Split), as a venue's operator credits a trader's deposit. Everything else the traders do goes
// through the public port like any client's (demoTraders.ts).
//
// The traders run on a thread of their own (demoThread.ts), so the venue reaches them as messages: the host's
// thread answers each request from the engine (engineVenue, serveVenue), the traders' thread asks through
// venueOverPort. A request's answer is read on the host's thread between two of its turns, so it is the engine's
// state at that moment: the same view the traders had when they ran on that thread.

import type { EngineHost } from '../host/engineHost.js';
import type { Market } from '../engine/market.js';
import type { MarketStatus } from '../engine/events.js';

/** A market as the demo traders see it: its terms, state and last trade (outcome 0's price, base units). */
export interface DemoMarket {
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  readonly status: MarketStatus;
  /** Tick and minimum size in the engine's units (PRICE_ONE a price of 1, 1,000,000 a share). */
  readonly tickSize: number;
  readonly minSize: number;
  readonly lastTradePrice: number | null;
  readonly negRiskMarketId: string | null;
  readonly questionIndex: number;
}

/** A neg-risk event: its questions, ascending by question index. */
export interface DemoEvent {
  readonly id: string;
  readonly questions: readonly DemoMarket[];
}

/** A trader's free collateral and free tokens by token id (base units); zeros for an account the engine lacks. */
export interface DemoBalances {
  readonly free: number;
  readonly tokens: Readonly<Record<string, number>>;
}

/** The operator's funding commands the traders are topped up with. */
export type DemoFunding =
  | { readonly type: 'Deposit'; readonly account: string; readonly amount: number }
  | { readonly type: 'Split'; readonly account: string; readonly conditionId: string; readonly amount: number };

export interface DemoVenue {
  /** Every market the engine lists, as it is now. */
  markets(): Promise<DemoMarket[]>;
  event(id: string): Promise<DemoEvent | undefined>;
  balances(account: string): Promise<DemoBalances>;
  /** Resolves once the command is durable (a rejected one resolves too: the next top-up tries again). */
  fund(command: DemoFunding): Promise<void>;
}

function demoMarket(m: Market): DemoMarket {
  return {
    conditionId: m.conditionId,
    tokenIds: m.tokenIds,
    status: m.status,
    tickSize: m.params.tickSize,
    minSize: m.params.minSize,
    lastTradePrice: m.lastTrade?.price ?? null,
    negRiskMarketId: m.negRiskMarketId,
    questionIndex: m.questionIndex,
  };
}

/** The venue read from the engine itself, on the host's thread. */
export function engineVenue(host: EngineHost): DemoVenue {
  return {
    markets: () => Promise.resolve([...host.engine.markets()].map(demoMarket)),
    event: (id) => {
      const event = host.engine.negRiskEvent(id);
      return Promise.resolve(event === undefined ? undefined : { id: event.id, questions: event.questions.map(demoMarket) });
    },
    balances: (account) => {
      const owned = host.engine.balances(account);
      const tokens: Record<string, number> = {};
      for (const [token, holding] of owned?.tokens ?? []) tokens[token] = holding.free;
      return Promise.resolve({ free: owned?.free ?? 0, tokens });
    },
    fund: async (command) => {
      await host.submit(command);
    },
  };
}

/** Either end of the channel between the threads: a Worker on the service's side, parentPort on the traders'. */
export interface VenuePort {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  postMessage(message: unknown): void;
}

/** A request from the traders' thread, and its answer (`ok` with the method's value, or the error's message). */
type VenueRequest =
  | { readonly method: 'markets' }
  | { readonly method: 'event'; readonly arg: string }
  | { readonly method: 'balances'; readonly arg: string }
  | { readonly method: 'fund'; readonly arg: DemoFunding };
type VenueCall = VenueRequest & { readonly id: number };
type VenueAnswer = { readonly venueId: number; readonly ok: unknown } | { readonly venueId: number; readonly error: string };

const VENUE_METHODS: ReadonlySet<unknown> = new Set<VenueRequest['method']>(['markets', 'event', 'balances', 'fund']);

function isVenueCall(message: unknown): message is VenueCall {
  return typeof message === 'object' && message !== null && typeof (message as { id?: unknown }).id === 'number' && VENUE_METHODS.has((message as { method?: unknown }).method);
}

/** Answers the venue requests that arrive on `port` from `venue`; other messages are left to the port's other listeners. */
export function serveVenue(port: VenuePort, venue: DemoVenue): void {
  port.on('message', (message: unknown) => {
    if (!isVenueCall(message)) return;
    const answer = (): Promise<unknown> => {
      switch (message.method) {
        case 'markets':
          return venue.markets();
        case 'event':
          return venue.event(message.arg);
        case 'balances':
          return venue.balances(message.arg);
        case 'fund':
          return venue.fund(message.arg);
      }
    };
    answer().then(
      (ok) => port.postMessage({ venueId: message.id, ok } satisfies VenueAnswer),
      (error: unknown) => port.postMessage({ venueId: message.id, error: error instanceof Error ? error.message : String(error) } satisfies VenueAnswer),
    );
  });
}

/** The venue asked over `port` (the traders' thread's side of serveVenue). */
export function venueOverPort(port: VenuePort): DemoVenue {
  let next = 0;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  port.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null || typeof (message as { venueId?: unknown }).venueId !== 'number') return;
    const answer = message as VenueAnswer;
    const call = waiting.get(answer.venueId);
    if (call === undefined) return;
    waiting.delete(answer.venueId);
    if ('error' in answer) call.reject(new Error(answer.error));
    else call.resolve(answer.ok);
  });
  const ask = <T>(request: VenueRequest): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      port.postMessage({ ...request, id });
    });
  return {
    markets: () => ask<DemoMarket[]>({ method: 'markets' }),
    event: (id) => ask<DemoEvent | undefined>({ method: 'event', arg: id }),
    balances: (account) => ask<DemoBalances>({ method: 'balances', arg: account }),
    fund: (command) => ask<void>({ method: 'fund', arg: command }),
  };
}
