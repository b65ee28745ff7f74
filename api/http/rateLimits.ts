// The request-rate windows of spec §8, by name. A route counts against its surface's window and the
// windows it names (RouteDef.limits); trading writes name both a burst and a sustained window and must fit
// both. The spec leaves the activity surface's figures open: they follow the public Data API's published
// limits (general 1,000, /trades 200, /positions 150 per 10 s). The spec's values are compatibility
// targets, so they are the defaults here.

export interface RateWindow {
  readonly limit: number;
  readonly windowMs: number;
}

const TEN_S = 10_000;
const TEN_MIN = 600_000;

export const RATE_WINDOWS = {
  // §8.1 catalog
  catalog: { limit: 4000, windowMs: TEN_S },
  'catalog:events': { limit: 500, windowMs: TEN_S },
  'catalog:markets': { limit: 300, windowMs: TEN_S },
  'catalog:listings': { limit: 900, windowMs: TEN_S },
  'catalog:tags': { limit: 200, windowMs: TEN_S },
  'catalog:public-search': { limit: 350, windowMs: TEN_S },
  // §8.2 order-book reads
  clob: { limit: 5000, windowMs: TEN_S },
  'clob:root': { limit: 50, windowMs: TEN_S },
  'clob:book': { limit: 200, windowMs: TEN_S },
  'clob:books': { limit: 80, windowMs: TEN_S },
  'clob:price': { limit: 200, windowMs: TEN_S },
  'clob:prices': { limit: 80, windowMs: TEN_S },
  'clob:midpoint': { limit: 200, windowMs: TEN_S },
  'clob:prices-history': { limit: 100, windowMs: TEN_S },
  'clob:batch-prices-history': { limit: 80, windowMs: TEN_S },
  'clob:data-trades': { limit: 150, windowMs: TEN_S },
  // §8.3 trading writes: burst and sustained
  'trade:order:burst': { limit: 2400, windowMs: TEN_S },
  'trade:order:sustained': { limit: 24_000, windowMs: TEN_MIN },
  'trade:cancel:burst': { limit: 2400, windowMs: TEN_S },
  'trade:cancel:sustained': { limit: 24_000, windowMs: TEN_MIN },
  // activity (not in the spec; the public Data API's figures)
  activity: { limit: 1000, windowMs: TEN_S },
  'activity:trades': { limit: 200, windowMs: TEN_S },
  'activity:positions': { limit: 150, windowMs: TEN_S },
  // the service's own endpoints
  service: { limit: 1000, windowMs: TEN_S },
} as const satisfies Record<string, RateWindow>;

export type RateWindowName = keyof typeof RATE_WINDOWS;
