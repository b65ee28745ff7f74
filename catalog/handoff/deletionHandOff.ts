// The engine side of deletions upstream (store/tombstones.ts): what happens to an order-book market whose
// catalog object was deleted, or comes back.
//
// - Deleted (tombstone engine = 'pause'): if the engine has the market active, PauseMarket through the log;
//   the tombstone then records 'paused'. A paused or resolved market, or one the engine does not have, is
//   left as it is (''). Never ResolveMarket: a deletion says nothing about the outcome; the positions stay,
//   and a resolution can still come if the market reappears resolved, or from an operator.
// - Restored after the deletion paused it ('resume'): if the engine has it paused and the catalog copy is
//   open (engineTerms.ts), ResumeMarket; then the usual hand-off of that copy (parameters, a resolution
//   that came meanwhile; closed without a decisive price keeps it paused). The tombstone then records ''.
//   A market paused by something else (a closing upstream, an operator) is never resumed here.
// - Idempotent and crash-safe: each step reads the engine first and records its result afterwards, so a
//   repeated step finds nothing to do. The service runs it at start and after every sync run.

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';
import { pendingMarketTombstones, writeTombstones, type Tombstone } from '../store/tombstones.js';
import type { GammaObject } from '../upstream/gammaValues.js';
import { engineTermsOf } from './engineTerms.js';
import { handOffMarkets, type CommandSink, type EngineMarketView, type HandOffCommand } from './handOffMarkets.js';

export interface DeletionHandOffReport {
  readonly paused: number;
  readonly resumed: number;
  /** Pending tombstones settled with nothing to do in the engine. */
  readonly settled: number;
  readonly rejected: readonly { conditionId: string; command: string; message: string }[];
}

export async function handOffDeletions(catalog: CatalogDb, host: CommandSink, engine: EngineMarketView, now: () => number = Date.now): Promise<DeletionHandOffReport> {
  const pending = await pendingMarketTombstones(catalog);
  if (pending.length === 0) return { paused: 0, resumed: 0, settled: 0, rejected: [] };
  const rows = await queryRows<{ id: string; json: string }>(catalog.client, `SELECT id, json FROM ${tableOf(catalog, 'markets')} FINAL WHERE id IN {ids:Array(String)}`, {
    ids: pending.map((t) => t.id),
  });
  const marketOf = new Map(rows.map((r) => [r.id, JSON.parse(r.json) as GammaObject]));

  const planned: { tombstone: Tombstone; command: HandOffCommand | undefined }[] = [];
  const restored: GammaObject[] = [];
  for (const tombstone of pending) {
    const market = marketOf.get(tombstone.id);
    const terms = market === undefined ? undefined : engineTermsOf(market);
    const conditionId = terms?.ok === true ? terms.terms.conditionId : undefined;
    const existing = conditionId === undefined ? undefined : engine.market(conditionId);
    let command: HandOffCommand | undefined;
    if (conditionId !== undefined && existing !== undefined && terms?.ok === true) {
      const sameTokens = existing.tokenIds[0] === terms.terms.tokenIds[0] && existing.tokenIds[1] === terms.terms.tokenIds[1];
      if (tombstone.deleted && tombstone.engine === 'pause' && existing.status === 'active') command = { type: 'PauseMarket', conditionId };
      if (!tombstone.deleted && tombstone.engine === 'resume' && sameTokens && existing.status === 'paused' && terms.terms.outcome.kind === 'open') command = { type: 'ResumeMarket', conditionId };
    }
    if (!tombstone.deleted && market !== undefined) restored.push(market);
    planned.push({ tombstone, command });
  }

  const done = await Promise.all(planned.map(async (p) => ({ ...p, events: p.command === undefined ? [] : await host.submit(p.command) })));
  let paused = 0;
  let resumed = 0;
  let settled = 0;
  const rejected: { conditionId: string; command: string; message: string }[] = [];
  const next: Omit<Tombstone, 'version'>[] = [];
  for (const { tombstone, command, events } of done) {
    const refusal = events.find((e) => e.type === 'CommandRejected');
    const accepted = command !== undefined && refusal === undefined;
    if (command !== undefined && refusal !== undefined && refusal.type === 'CommandRejected') {
      rejected.push({ conditionId: 'conditionId' in command ? String(command.conditionId) : '', command: command.type, message: refusal.message });
    }
    if (accepted && command.type === 'PauseMarket') paused += 1;
    else if (accepted && command.type === 'ResumeMarket') resumed += 1;
    else settled += 1;
    next.push({ ...tombstone, engine: tombstone.deleted && accepted ? 'paused' : '' });
  }
  // Parameters or a resolution that changed while the market was deleted.
  if (restored.length > 0) await handOffMarkets(host, engine, restored);
  await writeTombstones(catalog, next, now());
  return { paused, resumed, settled, rejected };
}
