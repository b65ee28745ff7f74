// The service's public reads the page uses, on the same origin: the catalog, activity and order-book surfaces.
// Shapes are the parts of the responses the page shows (spec §2).

export interface BookLevel {
  price: string;
  size: string;
}

export interface BookSnapshot {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: BookLevel[];
  asks: BookLevel[];
  tick_size: string;
  last_trade_price: string;
}

export interface EventSummary {
  id: string;
  title: string;
  slug: string;
}

export interface CatalogMarket {
  id: string;
  question: string;
  conditionId: string;
  slug: string;
  outcomes: string;
  clobTokenIds: string;
  active: boolean;
  closed: boolean;
  /** A question of a neg-risk event: exactly one of the event's markets resolves YES. */
  negRisk?: boolean;
  events?: EventSummary[];
}

export interface SearchResult {
  events: EventSummary[];
}

export interface TradeFill {
  proxyWallet: string;
  side: 'BUY' | 'SELL';
  conditionId: string;
  size: number;
  price: number;
  timestamp: number;
  title: string;
  outcome: string;
  transactionHash: string;
}

export interface Position {
  conditionId: string;
  title: string;
  outcome: string;
  size: number;
  avgPrice: number;
  curPrice: number;
  initialValue: number;
  currentValue: number;
  cashPnl: number;
  percentPnl: number;
  realizedPnl: number;
}

export interface PricePoint {
  t: number;
  p: number;
}

export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** The JSON-encoded arrays that catalog markets carry as text (outcomes, clobTokenIds). */
export function textArray(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}
