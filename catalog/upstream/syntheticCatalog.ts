// A generated catalog in the upstream's shape (the fields of a live GET /markets item), any size: for the
// sync benchmark and for tests that need many objects. Deterministic for a given size and start time.
// Markets come in events of `marketsPerEvent` (every other event neg-risk); each event carries one of the
// tags; updatedAt increases by one second per market.

import { createHash } from 'node:crypto';
import type { GammaObject } from './gammaValues.js';

export interface SyntheticCatalog {
  readonly markets: GammaObject[];
  readonly events: GammaObject[];
  readonly tags: GammaObject[];
}

export interface SyntheticOptions {
  readonly marketsPerEvent?: number;
  readonly startMs?: number;
  readonly firstMarketId?: number;
}

const TAG_SLUGS = ['politics', 'sports', 'crypto', 'economy', 'culture', 'science', 'tech', 'weather'];
const WORDS = ['election', 'rate', 'bitcoin', 'final', 'record', 'launch', 'merger', 'storm', 'award', 'summit', 'index', 'treaty'];

const hex = (label: string): string => createHash('sha256').update(label).digest('hex');
const iso = (ms: number): string => new Date(ms).toISOString();

export function syntheticCatalog(count: number, options: SyntheticOptions = {}): SyntheticCatalog {
  const perEvent = options.marketsPerEvent ?? 10;
  const start = options.startMs ?? Date.UTC(2026, 0, 1);
  const firstId = options.firstMarketId ?? 1_000_000;
  const tags = TAG_SLUGS.map((slug, i) => ({ id: String(100 + i), label: slug[0]?.toUpperCase() + slug.slice(1), slug, forceShow: false, createdAt: iso(start), updatedAt: iso(start) }));
  const events: GammaObject[] = [];
  const markets: GammaObject[] = [];
  for (let e = 0; e * perEvent < count; e++) {
    const word = WORDS[e % WORDS.length] as string;
    const negRisk = e % 2 === 0;
    const eventId = String(500_000 + e);
    const slug = `synthetic-${word}-event-${e}`;
    const summary = {
      id: eventId,
      ticker: slug,
      slug,
      title: `Synthetic ${word} event ${e}`,
      description: `Generated event ${e} about a ${word}.`,
      resolutionSource: '',
      startDate: iso(start),
      creationDate: iso(start),
      endDate: iso(start + 365 * 86_400_000),
      image: '',
      icon: '',
      active: true,
      closed: false,
      archived: false,
      negRisk,
      createdAt: iso(start),
      updatedAt: iso(start + (e * perEvent + perEvent) * 1000),
    };
    events.push({ ...summary, volume: e * 1000, liquidity: e * 100, tags: [tags[e % tags.length]], eventMetadata: {} });
    for (let k = 0; k < perEvent && e * perEvent + k < count; k++) {
      const i = e * perEvent + k;
      const id = firstId + i;
      const h = hex(`synthetic:${i}`);
      const price = ((parseInt(h.slice(0, 4), 16) % 98) + 1) / 100;
      const volume = parseInt(h.slice(4, 12), 16) / 1000;
      markets.push({
        id: String(id),
        question: `Will synthetic ${word} ${i} happen?`,
        conditionId: '0x' + h,
        slug: `synthetic-${word}-${i}`,
        resolutionSource: '',
        endDate: iso(start + 365 * 86_400_000),
        liquidity: String(volume / 10),
        startDate: iso(start),
        image: '',
        icon: '',
        description: `Generated market ${i}.`,
        outcomes: '["Yes", "No"]',
        outcomePrices: `["${price}", "${Number((1 - price).toFixed(2))}"]`,
        volume: String(volume),
        active: true,
        closed: false,
        marketMakerAddress: '',
        createdAt: iso(start),
        updatedAt: iso(start + (i + 1) * 1000),
        new: false,
        featured: false,
        submitted_by: i % 3 === 0 ? '0x91430cad2d3975766499717fa0d66a78d814e5c5' : '0xf43d55f3a8b7484ed4b6931f93cb6f9ef5dd369d',
        archived: false,
        restricted: true,
        groupItemTitle: `Option ${k}`,
        groupItemThreshold: String(k),
        questionID: '0x' + hex(`synthetic-question:${i}`),
        enableOrderBook: true,
        orderPriceMinTickSize: 0.01,
        orderMinSize: 5,
        volumeNum: volume,
        liquidityNum: volume / 10,
        volume24hr: volume / 50,
        volume1wk: volume / 10,
        clobTokenIds: `["${BigInt('0x' + hex(`synthetic-token:${i}:0`)).toString(10)}", "${BigInt('0x' + hex(`synthetic-token:${i}:1`)).toString(10)}"]`,
        umaBond: '500',
        umaReward: '5',
        makerBaseFee: 0,
        takerBaseFee: 0,
        acceptingOrders: true,
        negRisk,
        events: [summary],
        competitive: price,
        spread: 0.01,
        lastTradePrice: price,
        bestBid: Math.max(0.01, price - 0.01),
        bestAsk: Math.min(0.99, price + 0.01),
        umaResolutionStatuses: '[]',
        feesEnabled: false,
      });
    }
  }
  return { markets, events, tags };
}
