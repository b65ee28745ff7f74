// Everything POST /order checks before the engine sees an order, in this order (cheap checks first, the
// signature recovery last): the body's shape, `owner` = the caller's API key, the signed order's fields,
// `signer` = the key's address, the maker policy, the order's timestamp window, the optional conditionId,
// then the EIP-712 signature, and with it the request's L2 HMAC when the route's guard left it (hashed, recovered
// and compared by deps.signatures, on a worker thread by default, while
// the checks that need the order id wait for it). What comes out is the engine's PlaceOrder command. Every refusal is an
// ApiError with the public CLOB's text (upstream-conventions §2.5).
//
// Maker policy: signature type 0 (EOA) needs maker = signer; types 1 (POLY_PROXY) and 2 (POLY_GNOSIS_SAFE)
// need an authorisation of the signer by the maker that the operator registered (engine.signerAuthorized);
// type 3 (ERC-1271) is refused (there is no chain to ask the contract).

import { macMatches, parseOrderPayload, ZERO_BYTES32, type L2Mac, type SignedOrder } from '../../auth/index.js';
import { MAX_ORDER_AMOUNT, type OrderType, type PlaceOrder } from '../../engine/index.js';
import { ApiError } from '../http/apiErrors.js';
import { CONDITION_ID } from '../http/rootRules.js';
import { macRefusal, type Caller } from './authenticate.js';
import type { CheckVerdict } from './signatureChecks.js';
import type { TradingDeps } from './tradingDeps.js';

export type PlaceOrderSubmission = Omit<PlaceOrder, 'time'>;

const ORDER_TYPES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];

function invalid(detail: string): ApiError {
  return new ApiError('invalid_order_payload', { detail });
}

function orderType(value: unknown): OrderType {
  if (value === undefined || value === null) return 'GTC';
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  const found = ORDER_TYPES.find((t) => t === upper);
  if (found === undefined) throw invalid('orderType must be GTC, GTD, FOK or FAK');
  return found;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalid(`${name} must be a boolean`);
  return value;
}

const MAX_AMOUNT = BigInt(MAX_ORDER_AMOUNT);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function amount(value: bigint, name: string): number {
  if (value <= 0n || value > MAX_AMOUNT) throw invalid(`${name} must be between 1 and ${MAX_ORDER_AMOUNT} base units`);
  return Number(value);
}

/**
 * The checked PlaceOrder of one POST /order body (an element of POST /orders), or a thrown ApiError.
 * `takeMac` hands over the request's HMAC when its guard left it to be compared (authenticate.ts): it goes to
 * the signature check with the order, and a mismatch is the 401 before any refusal that follows the check.
 * It is taken only when the check is asked for, so a refusal before that leaves it to the route's confirm.
 */
export async function admitOrder(body: unknown, caller: Caller, deps: TradingDeps, takeMac: () => L2Mac | undefined = () => undefined): Promise<PlaceOrderSubmission> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object {order, owner, orderType}');
  const b = body as Readonly<Record<string, unknown>>;
  const type = orderType(b.orderType);
  const postOnly = flag(b.postOnly, 'postOnly');
  flag(b.deferExec, 'deferExec');
  if (b.owner !== caller.apiKey) throw new ApiError('order_owner_mismatch');
  const parsed = parseOrderPayload(b.order);
  if (!parsed.ok) throw invalid(parsed.detail);
  const order: SignedOrder = parsed.value;
  if (order.signer.toLowerCase() !== caller.account) throw new ApiError('order_signer_mismatch');
  const maker = order.maker.toLowerCase();
  if (order.signatureType === 1 || order.signatureType === 2) {
    if (maker !== caller.account && !deps.host.engine.signerAuthorized(maker, caller.account)) {
      throw new ApiError('maker_not_authorized', { maker: order.maker, signer: order.signer });
    }
  }
  // The decimal text the client sent is the token id's own text when it has no leading zero (parsing accepted
  // it as digits below 2^256); otherwise it is written afresh from the number.
  const sent = b.order as Readonly<Record<string, unknown>>;
  const sentTokenId = sent.tokenId;
  const tokenId = typeof sentTokenId === 'string' && sentTokenId.charCodeAt(0) !== 48 ? sentTokenId : order.tokenId.toString();
  const ref = deps.host.engine.marketOfToken(tokenId);
  const conditionId = sent.conditionId;
  const hasConditionId = conditionId !== undefined && conditionId !== null && conditionId !== '';
  if (hasConditionId && (typeof conditionId !== 'string' || !CONDITION_ID.test(conditionId))) throw invalid('conditionId must be 0x + 64 hex digits');
  if (order.expiration > MAX_SAFE) throw invalid('expiration is too large');
  const makerAmount = amount(order.makerAmount, 'makerAmount');
  const takerAmount = amount(order.takerAmount, 'takerAmount');
  const mac = takeMac();
  let verdict: CheckVerdict;
  try {
    verdict = await deps.signatures.check(order, ref?.market.params.negRisk ?? false, mac);
  } catch (error) {
    // No verdict (a signature worker failed): the HMAC is compared here, so a forged request is still a 401.
    if (mac !== undefined && !macMatches(mac)) throw macRefusal();
    throw error;
  }
  if (verdict.macRefused === true) throw macRefusal();
  if (verdict.orderId === '') throw invalid(verdict.detail);
  const orderId = verdict.orderId;
  const nowMs = deps.clock();
  const windowMs = deps.settings.orderTimestampWindowSec * 1000;
  // As a number: the window's bounds are far below 2^53, so the comparison is exact where it matters.
  const timestamp = Number(order.timestamp);
  if (timestamp > nowMs + windowMs || timestamp < nowMs - windowMs) {
    const offSec = Math.round((timestamp - nowMs) / 1000);
    throw new ApiError('order_timestamp', { id: orderId, detail: `(ms) is ${offSec} s from the server clock; it must be within ${deps.settings.orderTimestampWindowSec} s` });
  }
  if (hasConditionId && ref !== undefined && ref.market.conditionId.toLowerCase() !== String(conditionId).toLowerCase()) {
    throw new ApiError('market_mismatch', { id: orderId, conditionId: String(conditionId), tokenId });
  }
  if (!verdict.ok) throw invalid(verdict.detail);
  return {
    type: 'PlaceOrder',
    orderId,
    account: maker,
    owner: caller.apiKey,
    tokenId,
    side: order.side,
    makerAmount,
    takerAmount,
    orderType: type,
    postOnly,
    expiration: Number(order.expiration),
    dedupeUntil: timestamp + windowMs,
    signedAt: timestamp,
    ...(order.builder === ZERO_BYTES32 ? {} : { builder: order.builder }),
  };
}
