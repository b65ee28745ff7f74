// An in-memory index of the catalog's order-book markets, by condition id and by token id: what the
// order-book surface (api/clob/) and the read model's metadata (projections/readModel/metadata.ts) show
// beside the engine's own state. Contract:
// - It holds the catalog markets that can trade here: `enableOrderBook` and a condition id (the hand-off
//   lists no other). Values are normalised once at load: text '' and flags false when the upstream left
//   them out, outcome labels `Yes` / `No` unless the market names exactly two.
// - `event` is the market's first event by numeric id; `tags` are the labels of all its events' tags, in
//   event order then tag position, without repeats.
// - refresh() reloads everything from the catalog tables and swaps the whole index at once, so readers
//   never see half a load. The service calls it at start and after each catalog sync; calls made while one
//   runs share one more run after it (the rows it read may predate the sync that asked).
// - Lookups are synchronous (the order-book surface answers from memory) and take condition ids in any
//   letter case.

import type { ClickHouseClient } from '../storage/clickhouse.js';
import { queryRows } from '../storage/clickhouse.js';
import type { MarketMetadata, MarketMetadataSource } from '../projections/readModel/metadata.js';
import { byNumericId } from './catalogObjects.js';
import { TABLES } from './schema.js';
import { boolOf, idNumber, numberOf, stringArrayOf, textOf, type GammaObject } from './upstream/gammaValues.js';

export interface IndexedEvent {
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  readonly ticker: string;
  readonly description: string;
}

export interface RewardRate {
  readonly asset_address: string;
  readonly rewards_daily_rate: number;
}

export interface IndexedRewards {
  readonly rates: readonly RewardRate[];
  /** Shares. */
  readonly min_size: number;
  /** Cents, as the upstream gives it. */
  readonly max_spread: number;
}

export interface IndexedMarket {
  /** Lower case. */
  readonly conditionId: string;
  /** The catalog's (Gamma) id as a number; 0 when it is not a decimal integer. */
  readonly marketId: number;
  readonly catalogId: string;
  readonly question: string;
  readonly questionId: string;
  readonly description: string;
  readonly slug: string;
  readonly icon: string;
  readonly image: string;
  /** ISO 8601 ('' when unknown). */
  readonly endDate: string;
  readonly gameStartTime: string;
  readonly acceptingOrdersTimestamp: string;
  /** The upstream's market maker address. */
  readonly fpmm: string;
  readonly negRisk: boolean;
  readonly negRiskMarketId: string;
  readonly negRiskRequestId: string;
  /** Labels of outcome 0 and outcome 1. */
  readonly outcomes: readonly [string, string];
  readonly tokenIds: readonly string[];
  readonly tags: readonly string[];
  readonly event: IndexedEvent | undefined;
  readonly rewards: IndexedRewards;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly secondsDelay: number;
  readonly groupItemTitle: string;
  readonly resolutionSource: string;
}

interface Snapshot {
  readonly byCondition: ReadonlyMap<string, IndexedMarket>;
  readonly byToken: ReadonlyMap<string, IndexedMarket>;
  /** Condition ids of each event's markets (every event a market is linked to), in catalog id order. */
  readonly byEvent: ReadonlyMap<string, readonly string[]>;
  /** Condition ids of the markets whose events carry each tag label (lower case). */
  readonly byTag: ReadonlyMap<string, readonly string[]>;
}

const EMPTY: Snapshot = { byCondition: new Map(), byToken: new Map(), byEvent: new Map(), byTag: new Map() };

const text = (value: unknown): string => textOf(value) ?? '';

function outcomeLabels(value: unknown): readonly [string, string] {
  const labels = stringArrayOf(value);
  return labels !== undefined && labels.length === 2 ? [labels[0] as string, labels[1] as string] : ['Yes', 'No'];
}

function rewardsOf(market: GammaObject): IndexedRewards {
  const raw = Array.isArray(market.clobRewards) ? (market.clobRewards as unknown[]) : [];
  const rates: RewardRate[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const r = item as GammaObject;
    rates.push({ asset_address: text(r.assetAddress ?? r.asset_address), rewards_daily_rate: numberOf(r.rewardsDailyRate ?? r.rewards_daily_rate) ?? 0 });
  }
  return { rates, min_size: numberOf(market.rewardsMinSize) ?? 0, max_spread: numberOf(market.rewardsMaxSpread) ?? 0 };
}

/** One stored catalog market → its index entry (events and tags attached by the caller). */
export function indexedMarketOf(catalogId: string, market: GammaObject, event: IndexedEvent | undefined, tags: readonly string[]): IndexedMarket {
  return {
    conditionId: text(market.conditionId).toLowerCase(),
    marketId: idNumber(catalogId),
    catalogId,
    question: text(market.question),
    questionId: text(market.questionID),
    description: text(market.description),
    slug: text(market.slug),
    icon: text(market.icon),
    image: text(market.image),
    endDate: text(market.endDate),
    gameStartTime: text(market.gameStartTime),
    acceptingOrdersTimestamp: text(market.acceptingOrdersTimestamp),
    fpmm: text(market.marketMakerAddress),
    negRisk: boolOf(market.negRisk) === true,
    negRiskMarketId: text(market.negRiskMarketID),
    negRiskRequestId: text(market.negRiskRequestID),
    outcomes: outcomeLabels(market.outcomes),
    tokenIds: stringArrayOf(market.clobTokenIds) ?? [],
    tags,
    event,
    rewards: rewardsOf(market),
    active: boolOf(market.active) === true,
    closed: boolOf(market.closed) === true,
    archived: boolOf(market.archived) === true,
    secondsDelay: numberOf(market.secondsDelay) ?? 0,
    groupItemTitle: text(market.groupItemTitle),
    resolutionSource: text(market.resolutionSource),
  };
}

export class MarketIndex {
  private snapshot: Snapshot = EMPTY;
  /** Counts the snapshots taken: every indexed market is new with each (see metadataSource()). */
  private snapshots = 0;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
  ) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new Error(`invalid database name ${db}`);
  }

  get size(): number {
    return this.snapshot.byCondition.size;
  }

  get(conditionId: string): IndexedMarket | undefined {
    return this.snapshot.byCondition.get(conditionId.toLowerCase());
  }

  byToken(tokenId: string): IndexedMarket | undefined {
    return this.snapshot.byToken.get(tokenId);
  }

  /** Condition ids of the markets of these events (any of the events each market is linked to), without repeats. */
  conditionIdsOfEvents(eventIds: readonly string[]): string[] {
    const out = new Set<string>();
    for (const id of eventIds) for (const c of this.snapshot.byEvent.get(id) ?? []) out.add(c);
    return [...out];
  }

  /** Condition ids of the markets whose events carry the tag `label` (any letter case). */
  conditionIdsTagged(label: string): readonly string[] {
    return this.snapshot.byTag.get(label.toLowerCase()) ?? [];
  }

  /** Reloads the index from the catalog tables (see the contract above). */
  refresh(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const previous = this.running ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        this.queued = undefined;
        this.snapshot = await this.load();
        this.snapshots += 1;
      });
    this.queued = run;
    this.running = run;
    return run;
  }

  /** The read model's metadata (title, slug, icon, event, outcomes, end date, neg risk) from this index. */
  metadataSource(): MarketMetadataSource {
    // One metadata object per indexed market, made once: indexed markets are never changed (a refresh makes
    // new ones), and the in-memory reads compare these objects by identity (projections/live/marketInfoCache.ts).
    const made = new WeakMap<IndexedMarket, MarketMetadata>();
    const source = (conditionIds: readonly string[]): ReadonlyMap<string, MarketMetadata> => {
      const out = new Map<string, MarketMetadata>();
      for (const id of conditionIds) {
        const m = this.get(id);
        if (m === undefined) continue;
        let meta = made.get(m);
        if (meta === undefined) {
          meta = { title: m.question, slug: m.slug, icon: m.icon, eventSlug: m.event?.slug ?? '', eventId: m.event?.id ?? '', outcomes: m.outcomes, endDate: m.endDate, negRisk: m.negRisk };
          made.set(m, meta);
        }
        out.set(id, meta);
      }
      return out;
    };
    // A new snapshot may change any market's metadata; between snapshots none changes.
    return Object.assign(source, { generation: () => this.snapshots });
  }

  private table(name: keyof typeof TABLES): string {
    return `${this.db}.${TABLES[name]}`;
  }

  private async load(): Promise<Snapshot> {
    const markets = `SELECT id FROM ${this.table('markets')} FINAL WHERE enable_order_book = 1 AND condition_id != ''`;
    const [rows, links, events, eventTags, tags] = await Promise.all([
      queryRows<{ id: string; json: string }>(this.ch, `SELECT id, json FROM ${this.table('markets')} FINAL WHERE enable_order_book = 1 AND condition_id != ''`),
      queryRows<{ market_id: string; event_id: string }>(this.ch, `SELECT market_id, event_id FROM ${this.table('eventMarkets')} FINAL WHERE linked = 1 AND market_id IN (${markets})`),
      queryRows<IndexedEvent>(
        this.ch,
        `SELECT id, slug, title, ticker, JSONExtractString(json, 'description') AS description FROM ${this.table('events')} FINAL
          WHERE id IN (SELECT event_id FROM ${this.table('eventMarkets')} FINAL WHERE linked = 1 AND market_id IN (${markets}))`,
      ),
      queryRows<{ event_id: string; tag_id: string; position: number }>(this.ch, `SELECT event_id, tag_id, position FROM ${this.table('eventTags')} FINAL WHERE linked = 1`),
      queryRows<{ id: string; label: string }>(this.ch, `SELECT id, label FROM ${this.table('tags')} FINAL`),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const labelById = new Map(tags.map((t) => [t.id, t.label]));
    const tagsOfEvent = new Map<string, { tag: string; position: number }[]>();
    for (const row of eventTags) {
      if (!eventById.has(row.event_id)) continue;
      const list = tagsOfEvent.get(row.event_id) ?? [];
      list.push({ tag: row.tag_id, position: Number(row.position) });
      tagsOfEvent.set(row.event_id, list);
    }
    const eventsOfMarket = new Map<string, string[]>();
    for (const link of links) eventsOfMarket.set(link.market_id, [...(eventsOfMarket.get(link.market_id) ?? []), link.event_id]);

    const byCondition = new Map<string, IndexedMarket>();
    const byToken = new Map<string, IndexedMarket>();
    const byEvent = new Map<string, string[]>();
    const byTag = new Map<string, string[]>();
    const listed = (map: Map<string, string[]>, key: string, conditionId: string): void => {
      const list = map.get(key);
      if (list === undefined) map.set(key, [conditionId]);
      else if (list[list.length - 1] !== conditionId) list.push(conditionId);
    };
    rows.sort((a, b) => byNumericId(a.id, b.id));
    for (const row of rows) {
      const eventIds = (eventsOfMarket.get(row.id) ?? []).filter((id) => eventById.has(id)).sort(byNumericId);
      const labels = new Set<string>();
      for (const eventId of eventIds) {
        const list = (tagsOfEvent.get(eventId) ?? []).sort((a, b) => a.position - b.position || byNumericId(a.tag, b.tag));
        for (const { tag } of list) {
          const label = labelById.get(tag);
          if (label !== undefined && label !== '') labels.add(label);
        }
      }
      const first = eventIds[0];
      const market = indexedMarketOf(row.id, JSON.parse(row.json) as GammaObject, first === undefined ? undefined : eventById.get(first), [...labels]);
      // Two catalog markets with one condition id: the lower catalog id wins (as the catalog's own lookup).
      if (byCondition.has(market.conditionId)) continue;
      byCondition.set(market.conditionId, market);
      for (const token of market.tokenIds) if (!byToken.has(token)) byToken.set(token, market);
      for (const eventId of eventIds) listed(byEvent, eventId, market.conditionId);
      for (const label of labels) listed(byTag, label.toLowerCase(), market.conditionId);
    }
    return { byCondition, byToken, byEvent, byTag };
  }
}
