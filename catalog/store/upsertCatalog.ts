// Writes a batch of upstream objects (a page of a sync, a dump, the demo catalog) into the catalog tables.
//
// Contract:
// - Idempotent: writing the same batch twice leaves the same rows (ReplacingMergeTree + versions).
// - Objects nested in others (a market's events, an event's markets, tags and series, a series' events) are
//   stored too, as nested copies (they lose a tie to the object's own copy, see catalogRows.ts), unless they
//   carry nothing but an id.
// - A relation array that is present states the owner's complete set of links for that relation: links it
//   no longer lists get a tombstone with the owner's version. An absent array says nothing (a nested event
//   has no `markets`, which does not mean it has none).
// - Seen again = restored: an object the batch holds in any form (its own copy, a copy nested in another
//   object, or a bare id in a relation array) loses its deletion tombstone, if it had one (tombstones.ts).
//   `seen` reports every such id, which is what a reconciliation counts as "the upstream still lists it".

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';
import { nestedObjects, storedObject, type CatalogKind } from '../upstream/gammaObjects.js';
import type { GammaObject } from '../upstream/gammaValues.js';
import { eventRow, marketRow, seriesRow, tagRow, versionOf } from './catalogRows.js';
import { restoreSeen } from './tombstones.js';

export interface CatalogBatch {
  readonly markets?: readonly unknown[];
  readonly events?: readonly unknown[];
  readonly series?: readonly unknown[];
  readonly tags?: readonly unknown[];
}

export interface UpsertResult {
  /** Objects of each kind stored from the batch's own lists (nested copies not counted). */
  readonly markets: number;
  readonly events: number;
  readonly series: number;
  readonly tags: number;
  /** Items of the batch's own lists that were not objects with an id. */
  readonly skipped: number;
  /** The stored form of each market of the batch's own list (for the engine hand-off). */
  readonly storedMarkets: readonly GammaObject[];
  /** Every id the batch holds, in any form (own copies, nested copies, bare ids in relation arrays). */
  readonly seen: Readonly<Record<CatalogKind, ReadonlySet<string>>>;
  /** Ids whose deletion tombstone this write lifted. */
  readonly restored: Readonly<Record<CatalogKind, readonly string[]>>;
}

export interface UpsertOptions {
  /** Clock of the tombstone statements (default Date.now). */
  readonly now?: () => number;
}

type Relation = 'eventMarkets' | 'eventTags' | 'seriesEvents';

/** Columns of each relation's pair: [left, right]. */
const PAIR: Readonly<Record<Relation, readonly [string, string]>> = {
  eventMarkets: ['event_id', 'market_id'],
  eventTags: ['event_id', 'tag_id'],
  seriesEvents: ['series_id', 'event_id'],
};

/** Each relation array: which relation it states, the owner's side of the pair, and the nested kind. */
const RELATION_ARRAYS: Readonly<Record<CatalogKind, readonly { key: string; relation: Relation; side: 0 | 1; nested: CatalogKind }[]>> = {
  market: [{ key: 'events', relation: 'eventMarkets', side: 1, nested: 'event' }],
  event: [
    { key: 'markets', relation: 'eventMarkets', side: 0, nested: 'market' },
    { key: 'tags', relation: 'eventTags', side: 0, nested: 'tag' },
    { key: 'series', relation: 'seriesEvents', side: 1, nested: 'series' },
  ],
  series: [{ key: 'events', relation: 'seriesEvents', side: 0, nested: 'event' }],
  tag: [],
};

const TABLE_OF_KIND = { market: 'markets', event: 'events', series: 'series', tag: 'tags' } as const;

interface Statement {
  readonly relation: Relation;
  readonly side: 0 | 1;
  readonly owner: string;
  readonly others: readonly string[];
  readonly version: number;
}

class BatchCollector {
  readonly rows: Record<CatalogKind, Map<string, Record<string, unknown>>> = { market: new Map(), event: new Map(), series: new Map(), tag: new Map() };
  readonly statements = new Map<string, Statement>();
  readonly counts = { market: 0, event: 0, series: 0, tag: 0, skipped: 0 };
  readonly storedMarkets: GammaObject[] = [];
  readonly seen: Record<CatalogKind, Set<string>> = { market: new Set(), event: new Set(), series: new Set(), tag: new Set() };

  constructor(private readonly site: string) {}

  visit(kind: CatalogKind, raw: unknown, primary: boolean): string | undefined {
    const stored = storedObject(kind, raw);
    if (stored === undefined) {
      if (primary) this.counts.skipped += 1;
      return undefined;
    }
    const source = raw as GammaObject;
    const id = stored.id as string;
    this.seen[kind].add(id);
    if (primary || Object.keys(source).length > 1) this.keepRow(kind, this.rowOf(kind, stored, primary));
    if (primary) {
      this.counts[kind] += 1;
      if (kind === 'market') this.storedMarkets.push(stored);
    }
    for (const { key, relation, side, nested } of RELATION_ARRAYS[kind]) {
      const items = nestedObjects(source[key]);
      if (items === undefined) continue;
      const others: string[] = [];
      for (const item of items) {
        const otherId = this.visit(nested, item, false);
        if (otherId !== undefined && !others.includes(otherId)) others.push(otherId);
      }
      this.keepStatement({ relation, side, owner: id, others, version: versionOf(source, primary) });
    }
    return id;
  }

  private rowOf(kind: CatalogKind, stored: GammaObject, primary: boolean): Record<string, unknown> {
    if (kind === 'market') return marketRow(stored, this.site, primary);
    if (kind === 'event') return eventRow(stored, this.site, primary);
    if (kind === 'series') return seriesRow(stored, this.site, primary);
    return tagRow(stored, this.site, primary);
  }

  private keepRow(kind: CatalogKind, row: Record<string, unknown>): void {
    const rows = this.rows[kind];
    const previous = rows.get(row.id as string);
    if (previous === undefined || (previous.version as number) <= (row.version as number)) rows.set(row.id as string, row);
  }

  private keepStatement(statement: Statement): void {
    const key = `${statement.relation}|${statement.side}|${statement.owner}`;
    const previous = this.statements.get(key);
    if (previous === undefined || previous.version <= statement.version) this.statements.set(key, statement);
  }
}

/** Link rows for the statements of one relation, with tombstones for links their owners dropped. */
async function linkRows(catalog: CatalogDb, relation: Relation, statements: readonly Statement[]): Promise<Record<string, unknown>[]> {
  const [left, right] = PAIR[relation];
  const rows = new Map<string, Record<string, unknown>>();
  const put = (row: Record<string, unknown>): void => {
    const key = `${row[left] as string}|${row[right] as string}`;
    const previous = rows.get(key);
    if (previous === undefined || (previous.version as number) < (row.version as number) || (previous.version === row.version && row.linked === 1)) rows.set(key, row);
  };
  for (const side of [0, 1] as const) {
    const mine = statements.filter((s) => s.side === side);
    if (mine.length === 0) continue;
    const ownerColumn = side === 0 ? left : right;
    const existing = await queryRows<Record<string, string>>(
      catalog.client,
      `SELECT ${left}, ${right} FROM ${tableOf(catalog, relation)} FINAL WHERE linked = 1 AND ${ownerColumn} IN {owners:Array(String)}`,
      { owners: mine.map((s) => s.owner) },
    );
    const byOwner = new Map(mine.map((s) => [s.owner, s]));
    for (const link of existing) {
      const owner = link[ownerColumn] as string;
      const other = link[side === 0 ? right : left] as string;
      const statement = byOwner.get(owner);
      if (statement !== undefined && !statement.others.includes(other)) put({ [left]: link[left], [right]: link[right], linked: 0, version: statement.version, ...(relation === 'eventTags' ? { position: 0 } : {}) });
    }
    for (const s of mine) {
      s.others.forEach((other, index) => {
        const pair = side === 0 ? { [left]: s.owner, [right]: other } : { [left]: other, [right]: s.owner };
        put({ ...pair, linked: 1, version: s.version, ...(relation === 'eventTags' ? { position: side === 0 ? index : 0 } : {}) });
      });
    }
  }
  return [...rows.values()];
}

async function insert(catalog: CatalogDb, table: string, values: readonly Record<string, unknown>[]): Promise<void> {
  if (values.length === 0) return;
  await catalog.client.insert({ table, values: values as Record<string, unknown>[], format: 'JSONEachRow' });
}

/** Stores a batch; `site` attributes its markets to a catalog source (see README: creator scoping). */
export async function upsertCatalog(catalog: CatalogDb, batch: CatalogBatch, site: string, options: UpsertOptions = {}): Promise<UpsertResult> {
  const collector = new BatchCollector(site);
  for (const tag of batch.tags ?? []) collector.visit('tag', tag, true);
  for (const series of batch.series ?? []) collector.visit('series', series, true);
  for (const event of batch.events ?? []) collector.visit('event', event, true);
  for (const market of batch.markets ?? []) collector.visit('market', market, true);

  for (const kind of ['tag', 'series', 'event', 'market'] as const) {
    await insert(catalog, tableOf(catalog, TABLE_OF_KIND[kind]), [...collector.rows[kind].values()]);
  }
  const statements = [...collector.statements.values()];
  for (const relation of Object.keys(PAIR) as Relation[]) {
    const mine = statements.filter((s) => s.relation === relation);
    if (mine.length > 0) await insert(catalog, tableOf(catalog, relation), await linkRows(catalog, relation, mine));
  }
  const restored = await restoreSeen(catalog, collector.seen, (options.now ?? Date.now)());
  const { market, event, series, tag, skipped } = collector.counts;
  return { markets: market, events: event, series, tags: tag, skipped, storedMarkets: collector.storedMarkets, seen: collector.seen, restored };
}
