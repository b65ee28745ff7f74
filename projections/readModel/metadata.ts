// Market metadata the read model shows beside engine data: titles, slugs, icons, event, outcome labels,
// end date. It lives in the catalog, which the read model does not read directly: the caller injects a
// MarketMetadataSource (batch, possibly async). Markets the source does not know fall back to what the
// engine knows: empty strings and the outcome labels "Yes" / "No".

export interface MarketMetadata {
  readonly title: string;
  readonly slug: string;
  readonly icon: string;
  readonly eventSlug: string;
  readonly eventId: string;
  /** Labels of outcome 0 and outcome 1. */
  readonly outcomes: readonly [string, string];
  /** ISO 8601 date or date-time; '' when unknown. */
  readonly endDate: string;
  /** Overrides nothing the engine knows: used only when the engine has no such market. */
  readonly negRisk?: boolean;
}

/**
 * Metadata of the given markets; markets it does not know are simply absent from the map. `generation`, when
 * the source has one, changes whenever anything it gives may have changed: answers made from its metadata
 * may be kept while it stands (projections/live/orderPageCache.ts). A source without one gets nothing kept.
 */
export type MarketMetadataSource = ((conditionIds: readonly string[]) => Promise<ReadonlyMap<string, MarketMetadata>> | ReadonlyMap<string, MarketMetadata>) & {
  readonly generation?: () => number;
};

export const FALLBACK_METADATA: MarketMetadata = { title: '', slug: '', icon: '', eventSlug: '', eventId: '', outcomes: ['Yes', 'No'], endDate: '' };

/** A source that knows nothing: every market shows the fallback. */
export const noMetadata: MarketMetadataSource = Object.assign(() => new Map<string, MarketMetadata>(), { generation: () => 0 });

/** Adapts a one-market lookup to a source. */
export function metadataFrom(lookup: (conditionId: string) => MarketMetadata | undefined): MarketMetadataSource {
  return (ids) => {
    const out = new Map<string, MarketMetadata>();
    for (const id of ids) {
      const m = lookup(id);
      if (m !== undefined) out.set(id, m);
    }
    return out;
  };
}
