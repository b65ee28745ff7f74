// A canonical rendering of the engine state, hashed with SHA-256. Maps are walked in sorted key order and
// resting orders in book priority order, and zero balances are left out, so two engines that hold the same
// state (whatever the history of their maps) give the same hash. Used to prove replay and snapshot restore.

import { createHash } from 'node:crypto';
import { ASK, BID } from './book/orderBook.js';
import type { Order } from './order.js';
import type { EngineState } from './state.js';

function sortedKeys<V>(map: ReadonlyMap<string, V>): string[] {
  return [...map.keys()].sort();
}

function orderLine(o: Order): string {
  const line = [
    'o', o.id, o.account.address, o.owner, o.tokenId, o.side, o.ownPrice, o.bookSide, o.bookPrice, o.size, o.remaining,
    o.orderType, o.postOnly ? 1 : 0, o.expiration, o.expiresAt, o.priority, o.dedupeUntil,
  ].join('|');
  // The signed timestamp only where known, so states of older logs hash as they did before it existed.
  return o.signedAt < 0 ? line : `${line}|s=${o.signedAt}`;
}

export function computeStateHash(state: EngineState): string {
  const hash = createHash('sha256');
  const line = (text: string): void => {
    hash.update(text);
    hash.update('\n');
  };
  line(`engine|v1|seq=${state.seq}|now=${state.now}|fee=${state.feeAccount.address}|margin=${state.config.gtdSecurityMarginSec}`);
  line(`ledger|${state.ledger.deposits}|${state.ledger.withdrawals}`);
  for (const conditionId of sortedKeys(state.markets)) {
    const m = state.markets.get(conditionId);
    if (m === undefined) continue;
    const p = m.params;
    const last = m.lastTrade === null ? '-' : `${m.lastTrade.price}/${m.lastTrade.takerOutcome}/${m.lastTrade.takerSide}`;
    const market = ['m', conditionId, m.tokenIds[0], m.tokenIds[1], p.tickSize, p.minSize, p.makerFeeBps, p.takerFeeBps, p.negRisk ? 1 : 0, m.status, m.winningOutcome ?? '-', m.locked, last].join('|');
    // A question of a neg-risk event adds its event, index and burned NO tokens (markets on their own hash as before events existed).
    line(m.negRiskMarketId === null ? market : `${market}|nr=${m.negRiskMarketId}/${m.questionIndex}/${m.convertedNo}`);
    for (const side of [BID, ASK] as const) for (const order of m.book.orders(side)) line(orderLine(order));
  }
  // Neg-risk events only when there are any: what each paid ahead (its questions are on their market lines).
  for (const id of sortedKeys(state.negRisk.byId)) line(`nre|${id}|${state.negRisk.byId.get(id)?.unbacked ?? 0}`);
  for (const address of sortedKeys(state.ledger.accounts)) {
    const a = state.ledger.accounts.get(address);
    if (a === undefined) continue;
    const holdings = sortedKeys(a.holdings)
      .map((tokenId) => [tokenId, a.holdings.get(tokenId)] as const)
      .filter(([, h]) => h !== undefined && (h.free !== 0 || h.reserved !== 0))
      .map(([tokenId, h]) => `${tokenId}:${h?.free}:${h?.reserved}`);
    if (a.free === 0 && a.reserved === 0 && holdings.length === 0 && a.orders.size === 0) continue;
    line(['a', address, a.free, a.reserved, ...holdings].join('|'));
  }
  // Finished ids in insertion order: that order decides when each is forgotten. Signed timestamps, the
  // staleness horizons and signed request ids only where present (older logs hash as they did).
  for (const [id, status, until, signedAt] of state.done.entries()) line(signedAt < 0 ? `d|${id}|${status}|${until}` : `d|${id}|${status}|${until}|s=${signedAt}`);
  if (state.ids.forgottenThrough !== 0) line(`df|${state.ids.forgottenThrough}`);
  for (const [id, signedAt, until] of state.requests.entries()) line(`r|${id}|${signedAt}|${until}`);
  if (state.requests.forgottenThrough !== 0) line(`rf|${state.requests.forgottenThrough}`);
  // API keys only when there are any, so states without keys hash as they did before keys existed.
  for (const apiKey of sortedKeys(state.apiKeys.live)) {
    const owner = state.apiKeys.live.get(apiKey);
    if (owner !== undefined) line(`k|${apiKey}|${owner.address}|${owner.nonce}`);
  }
  for (const apiKey of sortedKeys(state.apiKeys.deleted)) {
    const owner = state.apiKeys.deleted.get(apiKey);
    if (owner !== undefined) line(`x|${apiKey}|${owner.address}|${owner.nonce}`);
  }
  // Read-only and builder keys likewise only when there are any, sorted by key.
  for (const key of sortedKeys(state.accessKeys.live)) {
    const owner = state.accessKeys.live.get(key);
    if (owner !== undefined) line(`ak|${key}|${owner.kind}|${owner.address}|${owner.createdAt}`);
  }
  // Signer authorisations likewise only when there are any, sorted by maker then signer.
  for (const [maker, signer] of state.signers.entries()) line(`g|${maker}|${signer}`);
  // Heartbeat sessions likewise only when there are any, sorted by account.
  for (const [account, id, deadline] of state.heartbeats.entries()) line(`h|${account}|${id}|${deadline}`);
  // Liquidity rewards likewise only when there are any: terms, the day and next sample, the day's accruals.
  const rewards = state.rewards;
  if (!rewards.empty) {
    for (const [id, rate, spread, min, since] of rewards.termEntries()) line(`rw|${id}|${rate}|${spread}|${min}|${since}`);
    line(`rwd|${rewards.day}|${rewards.nextSampleAt}`);
    for (const [id, rateMinutes, samples, scores] of rewards.accrualEntries()) line(['rwa', id, rateMinutes, samples, ...scores.map(([a, q]) => `${a}:${q}`)].join('|'));
  }
  return hash.digest('hex');
}
