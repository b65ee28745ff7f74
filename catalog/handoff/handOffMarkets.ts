// The hand-off from the catalog to the engine: catalog markets with an order book become engine markets
// through the log (the engine host's commands), and follow the upstream afterwards.
//
// For each market (terms from engineTerms.ts; the last copy of a condition id wins):
// | engine has it?            | upstream says             | command                                   |
// |---------------------------|---------------------------|-------------------------------------------|
// | no                        | open                      | ListMarket (a question of its neg-risk    |
// |                           |                           | event when it has one: engineTerms.ts)    |
// | no                        | closed or resolved        | none: nothing was ever traded here        |
// | yes, resolved             | anything                  | none                                      |
// | yes, other token ids      | anything                  | none, reported as a conflict              |
// | yes                       | resolved (prices 1/0)     | ResolveMarket with the winner             |
// | yes, active               | closed, no decisive prices| PauseMarket (no more trading; not resumed |
// |                           |                           | automatically)                            |
// | yes, on its own, negRisk  | open, a question of an    | JoinNegRiskEvent (listed before events    |
// |                           | event                     | existed)                                  |
// | yes                       | open, parameters differ   | UpdateMarket with the changed ones        |
// Markets deleted upstream are deletionHandOff.ts's (paused, never resolved; resumed when restored).
// Idempotent: what the engine already has is skipped, so running it again submits nothing. The commands are
// submitted together (the host puts them in as few log appends as it can) and the report says what the
// engine did, refusals included.

import type { Command, EngineEvent, MarketParams, MarketStatus } from '../../engine/index.js';
import type { GammaObject } from '../upstream/gammaValues.js';
import { isObject } from '../upstream/gammaValues.js';
import { engineTermsOf, type EngineTerms } from './engineTerms.js';

type Untimed<C> = C extends Command ? Omit<C, 'time'> : never;
export type HandOffCommand = Untimed<Command>;

/** The engine host's submit (host/engineHost.ts): resolves with the command's events once durable. */
export interface CommandSink {
  submit(command: HandOffCommand): Promise<readonly EngineEvent[]>;
}

/** What the hand-off reads of the engine (engine/engine.ts `market()`). */
export interface EngineMarketView {
  market(conditionId: string): { readonly tokenIds: readonly [string, string]; readonly params: MarketParams; readonly status: MarketStatus; readonly negRiskMarketId?: string | null } | undefined;
}

export interface HandOffReport {
  readonly listed: number;
  readonly updated: number;
  readonly resolved: number;
  readonly paused: number;
  /** Markets the engine already has as the upstream describes them. */
  readonly unchanged: number;
  /** Markets that do not trade here, by reason. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly conflicts: readonly { conditionId: string; reason: string }[];
  readonly rejected: readonly { conditionId: string; command: string; message: string }[];
}

const PARAM_KEYS = ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps', 'negRisk'] as const;

function changedParams(current: MarketParams, wanted: MarketParams): Partial<MarketParams> {
  const out: Partial<Record<keyof MarketParams, number | boolean>> = {};
  for (const key of PARAM_KEYS) if (current[key] !== wanted[key]) out[key] = wanted[key];
  return out as Partial<MarketParams>;
}

/** The command for one market, or why there is none. */
function commandFor(terms: EngineTerms, engine: EngineMarketView): HandOffCommand | { none: 'unchanged' | 'closed before listing' } | { conflict: string } {
  const { conditionId, tokenIds, params, outcome, negRiskEvent } = terms;
  const existing = engine.market(conditionId);
  if (existing === undefined) {
    if (outcome.kind !== 'open') return { none: 'closed before listing' };
    return { type: 'ListMarket', conditionId, tokenIds, ...params, ...negRiskEvent };
  }
  if (existing.status === 'resolved') return { none: 'unchanged' };
  if (existing.tokenIds[0] !== tokenIds[0] || existing.tokenIds[1] !== tokenIds[1]) return { conflict: 'the engine lists this condition id with other token ids' };
  if (outcome.kind === 'resolved') return { type: 'ResolveMarket', conditionId, winningOutcome: outcome.winningOutcome };
  if (outcome.kind === 'closed') return existing.status === 'active' ? { type: 'PauseMarket', conditionId } : { none: 'unchanged' };
  // Listed before neg-risk events existed (on its own, negRisk): it joins its event.
  if (negRiskEvent !== undefined && existing.negRiskMarketId === null && existing.params.negRisk) return { type: 'JoinNegRiskEvent', conditionId, ...negRiskEvent };
  const changed = changedParams(existing.params, params);
  return Object.keys(changed).length === 0 ? { none: 'unchanged' } : { type: 'UpdateMarket', conditionId, ...changed };
}

export async function handOffMarkets(host: CommandSink, engine: EngineMarketView, markets: readonly unknown[]): Promise<HandOffReport> {
  const skipped: Record<string, number> = {};
  const conflicts: { conditionId: string; reason: string }[] = [];
  const latest = new Map<string, EngineTerms>();
  for (const market of markets) {
    const result = engineTermsOf(isObject(market) ? (market as GammaObject) : {});
    if (!result.ok) skipped[result.reason] = (skipped[result.reason] ?? 0) + 1;
    else latest.set(result.terms.conditionId, result.terms);
  }
  let unchanged = 0;
  const commands: HandOffCommand[] = [];
  for (const terms of latest.values()) {
    const planned = commandFor(terms, engine);
    if ('conflict' in planned) conflicts.push({ conditionId: terms.conditionId, reason: planned.conflict });
    else if ('none' in planned) {
      if (planned.none === 'unchanged') unchanged += 1;
      else skipped[planned.none] = (skipped[planned.none] ?? 0) + 1;
    } else commands.push(planned);
  }
  const outcomes = await Promise.all(commands.map(async (command) => ({ command, events: await host.submit(command) })));
  const counts = { ListMarket: 0, UpdateMarket: 0, JoinNegRiskEvent: 0, ResolveMarket: 0, PauseMarket: 0 };
  const rejected: { conditionId: string; command: string; message: string }[] = [];
  for (const { command, events } of outcomes) {
    const refusal = events.find((e) => e.type === 'CommandRejected');
    const conditionId = 'conditionId' in command ? String(command.conditionId) : '';
    if (refusal !== undefined && refusal.type === 'CommandRejected') rejected.push({ conditionId, command: command.type, message: refusal.message });
    else if (command.type in counts) counts[command.type as keyof typeof counts] += 1;
  }
  return { listed: counts.ListMarket, updated: counts.UpdateMarket + counts.JoinNegRiskEvent, resolved: counts.ResolveMarket, paused: counts.PauseMarket, unchanged, skipped, conflicts, rejected };
}
