// What every query function needs: the ClickHouse client and database holding the projection tables, the
// metadata source, the clock (price-history intervals end "now") and the fee account (not a holder).

import type { ClickHouseClient } from '@clickhouse/client';
import { DEFAULT_ENGINE_CONFIG } from '../../engine/index.js';
import { noMetadata, type MarketMetadataSource } from './metadata.js';

export interface ReadContext {
  readonly ch: ClickHouseClient;
  /** Database of the projection tables (an identifier: it is spliced into SQL). */
  readonly db: string;
  readonly metadata: MarketMetadataSource;
  /** ms since the epoch. */
  readonly now: () => number;
  /** The engine's fee account: it holds collected token fees and is left out of holder lists. */
  readonly feeAccount: string;
}

export interface ReadContextOptions {
  readonly metadata?: MarketMetadataSource;
  readonly now?: () => number;
  readonly feeAccount?: string;
}

export function readContext(ch: ClickHouseClient, db: string, options: ReadContextOptions = {}): ReadContext {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new Error(`invalid database name ${db}`);
  return {
    ch,
    db,
    metadata: options.metadata ?? noMetadata,
    now: options.now ?? Date.now,
    feeAccount: options.feeAccount ?? DEFAULT_ENGINE_CONFIG.feeAccount,
  };
}

/** Rows of a SELECT, 64-bit integers as JSON numbers (every amount we store is below 2^53). */
export async function select<T>(ctx: ReadContext, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await ctx.ch.query({ query, format: 'JSONEachRow', query_params: params, clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  return (await result.json()) as T[];
}
