// Where a sync stream stands, persisted in catalog_sync_state after every stored page so that a restart
// resumes where the last run stopped. One row per (source, stream); `version` increases with every save.

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';

export type SyncPhase = 'full' | 'incremental';

export interface StreamState {
  /** The upstream base URL (or another source name, e.g. 'demo'). */
  readonly source: string;
  readonly stream: string;
  /** 'full' until the first full pass completes, then 'incremental'. */
  readonly phase: SyncPhase;
  /** Offset of the next page of the current pass. */
  readonly nextOffset: number;
  /** Every object updated at or before this time (µs; -1 = none) was synced by a completed pass. */
  readonly watermark: number;
  /** Latest updatedAt (µs) seen by the current pass; becomes the watermark when the pass completes. */
  readonly passMax: number;
  readonly fullPasses: number;
  /** Objects stored by this stream over all runs. */
  readonly items: number;
  readonly version: number;
}

export function initialState(source: string, stream: string): StreamState {
  return { source, stream, phase: 'full', nextOffset: 0, watermark: -1, passMax: -1, fullPasses: 0, items: 0, version: 0 };
}

interface StateRow {
  phase: string;
  next_offset: string;
  watermark: string;
  pass_max: string;
  full_passes: number;
  items: string;
  version: string;
}

export async function loadStreamState(catalog: CatalogDb, source: string, stream: string): Promise<StreamState> {
  const rows = await queryRows<StateRow>(
    catalog.client,
    `SELECT phase, next_offset, watermark, pass_max, full_passes, items, version FROM ${tableOf(catalog, 'syncState')} FINAL WHERE source = {source:String} AND stream = {stream:String}`,
    { source, stream },
  );
  const row = rows[0];
  if (row === undefined) return initialState(source, stream);
  return {
    source,
    stream,
    phase: row.phase === 'incremental' ? 'incremental' : 'full',
    nextOffset: Number(row.next_offset),
    watermark: Number(row.watermark),
    passMax: Number(row.pass_max),
    fullPasses: Number(row.full_passes),
    items: Number(row.items),
    version: Number(row.version),
  };
}

/** Saves a new state (its version one above the given one's) and returns it. */
export async function saveStreamState(catalog: CatalogDb, state: Omit<StreamState, 'version'> & { version: number }): Promise<StreamState> {
  const next: StreamState = { ...state, version: state.version + 1 };
  await catalog.client.insert({
    table: tableOf(catalog, 'syncState'),
    format: 'JSONEachRow',
    values: [
      {
        source: next.source,
        stream: next.stream,
        phase: next.phase,
        next_offset: next.nextOffset,
        watermark: next.watermark,
        pass_max: next.passMax,
        full_passes: next.fullPasses,
        items: next.items,
        saved_at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
        version: next.version,
      },
    ],
  });
  return next;
}

export async function allStreamStates(catalog: CatalogDb, source: string): Promise<StreamState[]> {
  const rows = await queryRows<{ stream: string }>(catalog.client, `SELECT stream FROM ${tableOf(catalog, 'syncState')} FINAL WHERE source = {source:String} ORDER BY stream`, { source });
  return Promise.all(rows.map((r) => loadStreamState(catalog, source, r.stream)));
}
