// Objects in the real upstream shape for sync tests: copies of the live captures (test/catalog/fixtures/live)
// with their ids, condition ids, token ids, slugs, question ids (copy i is question i of the capture's neg-risk
// event) and updatedAt changed.

import { createHash } from 'node:crypto';
import type { GammaObject } from '../../../catalog/upstream/gammaValues.js';
import { liveBody } from './testCatalog.js';

const hex = (label: string): string => createHash('sha256').update(label).digest('hex');
export const BASE_MS = Date.UTC(2026, 9, 1);
export const isoAt = (minutes: number): string => new Date(BASE_MS + minutes * 60_000).toISOString();

/** Copy i of the live GET /markets item, updated `minutes` after BASE_MS. */
export function liveMarket(i: number, minutes = i): GammaObject {
  const body = structuredClone(liveBody('Market'));
  return {
    ...body,
    id: String(3_000_000 + i),
    question: `${body.question as string} (copy ${i})`,
    conditionId: '0x' + hex(`live-copy:${i}`),
    slug: `live-copy-${i}`,
    clobTokenIds: `["${BigInt('0x' + hex(`live-copy-token:${i}:0`)).toString(10)}", "${BigInt('0x' + hex(`live-copy-token:${i}:1`)).toString(10)}"]`,
    // Question i of the capture's neg-risk event (upstream's questionID: the event id with the index in its last byte).
    ...(typeof body.negRiskMarketID === 'string' ? { questionID: `${body.negRiskMarketID.slice(0, 64)}${i.toString(16).padStart(2, '0')}` } : {}),
    updatedAt: isoAt(minutes),
  };
}

export function liveMarkets(count: number): GammaObject[] {
  return Array.from({ length: count }, (_, i) => liveMarket(i));
}
