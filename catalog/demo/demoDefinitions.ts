// The demo catalog in brief: series, tags and events with their markets. buildDemoCatalog.ts expands this
// into full upstream-shaped objects (demoCatalog.json). The names of people, films and teams are
// illustrative; prices and volumes are invented.

export interface DemoMarket {
  readonly slug: string;
  readonly question: string;
  /** Outcome labels; default ["Yes", "No"]. */
  readonly outcomes?: readonly [string, string];
  /** Candidate or line label inside a multi-market event. */
  readonly group?: string;
  /** Outcome 0's price while open. */
  readonly price: number;
  /** Winning outcome when the market resolved. */
  readonly winner?: 0 | 1;
  readonly tick?: 0.01 | 0.001;
  readonly minShares?: number;
  readonly takerFeeBps?: number;
}

export interface DemoEvent {
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly series?: string;
  readonly tags: readonly string[];
  readonly negRisk: boolean;
  readonly start: string;
  readonly end: string;
  /** Closed and resolved (every market has a winner). */
  readonly resolved?: boolean;
  readonly creator: 'markets' | 'sports';
  readonly resolutionSource?: string;
  readonly markets: readonly DemoMarket[];
}

export interface DemoSeries {
  readonly slug: string;
  readonly title: string;
  readonly recurrence: string;
}

export interface DemoTag {
  readonly slug: string;
  readonly label: string;
}

/** Wallets the demo markets are attributed to (`submitted_by`; see catalog/creatorScope.ts). */
export const DEMO_CREATORS = {
  markets: '0x7c3db8a0e6f1f4a29b5e0c6d2a8f9b1e3c4d5a6b',
  sports: '0x2f9e6a4c8b1d3e5f7a9c0b2d4e6f8a1c3e5b7d9f',
} as const;

export const DEMO_SERIES: readonly DemoSeries[] = [
  { slug: 'fomc', title: 'FOMC', recurrence: 'monthly' },
  { slug: 'nba', title: 'NBA', recurrence: 'daily' },
  { slug: 'bitcoin-monthly-strikes', title: 'Bitcoin Monthly Strikes', recurrence: 'monthly' },
];

export const DEMO_TAGS: readonly DemoTag[] = [
  { slug: 'politics', label: 'Politics' },
  { slug: 'elections', label: 'Elections' },
  { slug: 'economy', label: 'Economy' },
  { slug: 'fed', label: 'Fed' },
  { slug: 'sports', label: 'Sports' },
  { slug: 'nba', label: 'NBA' },
  { slug: 'crypto', label: 'Crypto' },
  { slug: 'bitcoin', label: 'Bitcoin' },
  { slug: 'weather', label: 'Weather' },
  { slug: 'culture', label: 'Culture' },
  { slug: 'movies', label: 'Movies' },
  { slug: 'science', label: 'Science' },
  { slug: 'tech', label: 'Tech' },
  { slug: 'ai', label: 'AI' },
];

const fed = (month: string, resolved: boolean, prices: readonly [number, number, number, number], winner?: number): DemoEvent => ({
  slug: `fed-decision-in-${month.toLowerCase()}-2026`,
  title: `Fed decision in ${month}?`,
  description: `This event resolves according to the change to the upper bound of the target federal funds range announced after the FOMC meeting in ${month} 2026.`,
  series: 'fomc',
  tags: ['economy', 'fed'],
  negRisk: true,
  start: month === 'October' ? '2026-08-01T16:00:00Z' : '2026-10-01T16:00:00Z',
  end: month === 'October' ? '2026-10-28T18:00:00Z' : '2026-12-09T19:00:00Z',
  resolved,
  creator: 'markets',
  resolutionSource: 'https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm',
  markets: [
    ['50-bps-decrease', '50+ bps decrease', 'Will the Fed decrease interest rates by 50+ bps after the', 0],
    ['25-bps-decrease', '25 bps decrease', 'Will the Fed decrease interest rates by 25 bps after the', 1],
    ['no-change', 'No change', 'Will there be no change in Fed interest rates after the', 2],
    ['25-bps-increase', '25+ bps increase', 'Will the Fed increase interest rates by 25+ bps after the', 3],
  ].map(([key, group, ask, i]) => ({
    slug: `fed-${key as string}-${month.toLowerCase()}-2026`,
    question: `${ask as string} ${month} 2026 meeting?`,
    group: group as string,
    price: prices[i as number] as number,
    ...(resolved ? { winner: (i === winner ? 0 : 1) as 0 | 1 } : {}),
  })),
});

const game = (slug: string, home: string, away: string, favourite: string, line: number, total: number, day: string, result?: { home: boolean; cover: boolean; over: boolean }): DemoEvent => ({
  slug,
  title: `${home} vs. ${away}`,
  description: `NBA regular season game between the ${home} and the ${away} on ${day}. Markets resolve on the official final score, overtime included.`,
  series: 'nba',
  tags: ['sports', 'nba'],
  negRisk: false,
  start: `${day}T00:00:00Z`,
  end: `${day}T23:59:00Z`,
  resolved: result !== undefined,
  creator: 'sports',
  resolutionSource: 'https://www.nba.com/',
  markets: [
    { slug: `${slug}-moneyline`, question: `${home} vs. ${away}`, outcomes: [home, away], price: 0.44, ...(result ? { winner: result.home ? 0 : 1 } : {}) },
    { slug: `${slug}-spread`, question: `Spread: ${favourite} (-${line})`, outcomes: [favourite, favourite === home ? away : home], price: 0.51, group: `Spread -${line}`, ...(result ? { winner: result.cover ? 0 : 1 } : {}) },
    { slug: `${slug}-total`, question: `${home} vs. ${away}: O/U ${total}`, outcomes: ['Over', 'Under'], price: 0.5, group: `O/U ${total}`, ...(result ? { winner: result.over ? 0 : 1 } : {}) },
  ],
});

const bitcoin = (month: string, day: string, prices: readonly [number, number, number], winners?: readonly [0 | 1, 0 | 1, 0 | 1]): DemoEvent => ({
  slug: `bitcoin-above-on-${month.toLowerCase()}-${day}-2026`,
  title: `Bitcoin above ___ on ${month} ${day}?`,
  description: `Each market resolves Yes if the Binance BTC/USDT 1-minute candle close at 12:00 ET on ${month} ${day}, 2026 is above its strike.`,
  series: 'bitcoin-monthly-strikes',
  tags: ['crypto', 'bitcoin'],
  negRisk: false,
  start: month === 'October' ? '2026-09-30T16:00:00Z' : '2026-11-30T16:00:00Z',
  end: month === 'October' ? '2026-10-31T16:00:00Z' : '2026-12-31T17:00:00Z',
  resolved: winners !== undefined,
  creator: 'sports',
  resolutionSource: 'https://www.binance.com/en/trade/BTC_USDT',
  markets: ([100, 120, 150] as const).map((strike, i) => ({
    slug: `bitcoin-above-${strike}k-on-${month.toLowerCase()}-${day}-2026`,
    question: `Will the price of Bitcoin be above $${strike},000 on ${month} ${day}?`,
    group: `${strike},000`,
    price: prices[i] as number,
    tick: 0.001,
    ...(winners ? { winner: winners[i] } : {}),
  })),
});

const field = (slug: string, title: string, description: string, tags: readonly string[], end: string, ask: (name: string) => string, entries: readonly [string, number][]): DemoEvent => ({
  slug,
  title,
  description,
  tags,
  negRisk: true,
  start: '2026-09-15T12:00:00Z',
  end,
  creator: 'markets',
  markets: entries.map(([name, price]) => ({
    slug: `${slug}-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '')}`,
    question: ask(name),
    group: name,
    price,
  })),
});

export const DEMO_EVENTS: readonly DemoEvent[] = [
  fed('December', false, [0.04, 0.31, 0.63, 0.02]),
  fed('October', true, [0.02, 0.18, 0.78, 0.02], 2),
  field(
    'presidential-election-winner-2028',
    'Presidential Election Winner 2028',
    'This event resolves to the person who wins the 2028 US presidential election, as called by the major networks and certified.',
    ['politics', 'elections'],
    '2028-11-07T23:59:00Z',
    (name) => `Will ${name} win the 2028 US Presidential Election?`,
    [['Avery Brooks', 0.29], ['Jordan Ellis', 0.21], ['Morgan Reyes', 0.14], ['Casey Whitfield', 0.11], ['Riley Okafor', 0.08], ['Another candidate', 0.17]],
  ),
  game('nba-lal-bos-2026-12-25', 'Lakers', 'Celtics', 'Celtics', 4.5, 224.5, '2026-12-25'),
  game('nba-gsw-den-2026-12-26', 'Warriors', 'Nuggets', 'Nuggets', 3.5, 231.5, '2026-12-26'),
  game('nba-nyk-mia-2026-11-20', 'Knicks', 'Heat', 'Knicks', 2.5, 214.5, '2026-11-20', { home: true, cover: false, over: true }),
  bitcoin('December', '31', [0.58, 0.27, 0.06]),
  bitcoin('October', '31', [0.97, 0.04, 0.01], [0, 1, 1]),
  {
    slug: 'will-it-rain-in-london-on-december-24-2026',
    title: 'Will it rain in London on December 24?',
    description: 'Resolves Yes if the Met Office records at least 0.2 mm of precipitation at London Heathrow on December 24, 2026 (local time).',
    tags: ['weather'],
    negRisk: false,
    start: '2026-11-01T09:00:00Z',
    end: '2026-12-25T09:00:00Z',
    creator: 'markets',
    resolutionSource: 'https://www.metoffice.gov.uk/',
    markets: [{ slug: 'will-it-rain-in-london-on-december-24-2026', question: 'Will it rain in London on December 24?', price: 0.55 }],
  },
  field(
    'oscars-2027-best-picture-winner',
    'Oscars 2027: Best Picture Winner',
    'This event resolves to the film that wins Best Picture at the 99th Academy Awards.',
    ['culture', 'movies'],
    '2027-03-15T04:00:00Z',
    (name) => `Will "${name}" win Best Picture at the 2027 Oscars?`,
    [['The Last Lighthouse', 0.34], ['Paper Cities', 0.22], ['Northbound', 0.18], ['A Quiet Harvest', 0.15], ['Salt and Iron', 0.11]],
  ),
  {
    slug: 'starship-reaches-orbit-in-2026',
    title: 'Will Starship reach orbit in 2026?',
    description: 'Resolves Yes if a Starship vehicle completes at least one full orbit of the Earth before January 1, 2027 (ET), per official SpaceX statements.',
    tags: ['science', 'tech'],
    negRisk: false,
    start: '2026-02-01T12:00:00Z',
    end: '2026-12-31T23:59:00Z',
    creator: 'markets',
    resolutionSource: 'https://www.spacex.com/launches/',
    markets: [{ slug: 'starship-reaches-orbit-in-2026', question: 'Will Starship reach orbit in 2026?', price: 0.72, minShares: 15, takerFeeBps: 100 }],
  },
  field(
    'best-ai-model-end-of-2026',
    'Which company has the best AI model end of 2026?',
    'Resolves to the company whose model ranks first on the LMArena text leaderboard on December 31, 2026, 12:00 PM ET.',
    ['tech', 'ai'],
    '2026-12-31T17:00:00Z',
    (name) => `Will ${name} have the best AI model at the end of 2026?`,
    [['Google', 0.41], ['OpenAI', 0.38], ['Anthropic', 0.15], ['xAI', 0.06]],
  ),
];

/**
 * The demo markets with a liquidity rewards pool (USDC a day), as upstream's catalog gives one: `clobRewards`
 * with a daily rate beside every market's `rewardsMinSize` and `rewardsMaxSpread`. The catalog hand-off makes
 * them the engine's programs (catalog/handoff/rewardsHandOff.ts); the demo maker's quotes earn from them.
 */
export const DEMO_REWARDS: Readonly<Record<string, number>> = {
  'fed-no-change-december-2026': 500,
  'nba-lal-bos-2026-12-25-moneyline': 200,
  'bitcoin-above-100k-on-december-31-2026': 300,
  'will-it-rain-in-london-on-december-24-2026': 100,
  'starship-reaches-orbit-in-2026': 250,
};
