// The allowed values of `order` on GET /markets and GET /events: the upstream's JSON field names (camelCase),
// each also accepted in snake_case (volume24hr → volume_24hr, startDate → start_date), mapped to the column
// that sorts it. Anything else is a 400. `order` may name several fields, comma-separated; `ascending`
// applies to all of them. Missing values (NULL) sort last in both directions; ties break on the numeric id.

export type SortColumns = ReadonlyMap<string, string>;

function withAliases(columns: Record<string, string>, extra: Record<string, string> = {}): SortColumns {
  const map = new Map<string, string>();
  for (const [name, column] of Object.entries(columns)) {
    map.set(name, column);
    map.set(name.replace(/([a-z])([A-Z0-9])/g, '$1_$2').toLowerCase(), column);
  }
  for (const [alias, name] of Object.entries(extra)) {
    const column = columns[name];
    if (column !== undefined) map.set(alias, column);
  }
  return map;
}

export const MARKET_SORT_COLUMNS: SortColumns = withAliases(
  {
    id: 'id_num',
    slug: 'slug',
    question: 'question',
    startDate: 'start_date',
    endDate: 'end_date',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
    closedTime: 'closed_time',
    volume: 'volume',
    volumeNum: 'volume',
    volume24hr: 'volume_24hr',
    volume1wk: 'volume_1wk',
    volume1mo: 'volume_1mo',
    volume1yr: 'volume_1yr',
    liquidity: 'liquidity',
    liquidityNum: 'liquidity',
    competitive: 'competitive',
    spread: 'spread',
    lastTradePrice: 'last_trade_price',
    bestBid: 'best_bid',
    bestAsk: 'best_ask',
    oneDayPriceChange: 'one_day_price_change',
  },
  { volume_24hr: 'volume24hr', volume_1wk: 'volume1wk', volume_1mo: 'volume1mo', volume_1yr: 'volume1yr' },
);

export const EVENT_SORT_COLUMNS: SortColumns = withAliases(
  {
    id: 'id_num',
    slug: 'slug',
    title: 'title',
    ticker: 'ticker',
    startDate: 'start_date',
    endDate: 'end_date',
    creationDate: 'creation_date',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
    volume: 'volume',
    volume24hr: 'volume_24hr',
    liquidity: 'liquidity',
    competitive: 'competitive',
    openInterest: 'open_interest',
  },
  { volume_24hr: 'volume24hr' },
);

/** The public names of a sort table (for documentation and error messages): the camelCase ones. */
export function sortNames(columns: SortColumns): string[] {
  return [...columns.keys()].filter((name) => !name.includes('_'));
}

/** Columns of a comma-separated `order` value, or the first unknown name. */
export function resolveOrder(order: string, columns: SortColumns): { columns: string[] } | { unknown: string } {
  const out: string[] = [];
  for (const raw of order.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const column = columns.get(name);
    if (column === undefined) return { unknown: name };
    if (!out.includes(column)) out.push(column);
  }
  return { columns: out };
}
