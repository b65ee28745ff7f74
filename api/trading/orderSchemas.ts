// Body schemas of POST /order and POST /orders: the signed V2 order as auth/orderPayload.ts parses it and the
// envelope as orderIntake.ts reads it, every form rule of both. The server checks a body against them after
// authentication; what no schema can say is judged after that: the signature, the owner and signer against
// the caller's key, the maker's authorisation, the timestamp window, and the engine's rules (the market, the
// tick and minimum size, funds, expiration against the order type: docs/errors.md).

import { MAX_ORDER_AMOUNT } from '../../engine/index.js';
import type { JsonSchema } from '../http/apiTypes.js';
import { ADDRESS_PATTERN, answering, anyCase, CONDITION_ID_PATTERN, digitsAtMost, SIDE_PATTERN, uintUpTo, UINT256_PATTERN } from '../schemas/formats.js';

/** Most orders in one POST /orders (upstream's limit). */
export const MAX_BATCH_ORDERS = 15;

const HEX_PREFIX = '(?:0[xX])?';

// In each anyOf the form clients send comes first (decimal strings, hex strings; the salt as a JSON number, as the
// official clients send it): the validator records an error object for every branch tried before the one that
// passes (allErrors, verbose), and a refusal reports the anyOf itself (schemas.ts inputError), so the order
// changes only that allocation, never a verdict or a message.

/**
 * A uint256 as a decimal string (leading zeros allowed, up to 80 digits) or a JSON integer up to 2^53 − 1;
 * `numberFirst`: the integer branch is tried first.
 */
const uint = (description: string, max?: bigint, numberFirst = false): JsonSchema => {
  const text = { type: 'string', pattern: max === undefined ? UINT256_PATTERN : `^${digitsAtMost(max, 80)}$` };
  const integer = { type: 'integer', minimum: 0, maximum: max === undefined ? Number.MAX_SAFE_INTEGER : Math.min(Number(max), Number.MAX_SAFE_INTEGER) };
  return { anyOf: numberFirst ? [integer, text] : [text, integer], description };
};

/** An amount in base units: 1 to MAX_ORDER_AMOUNT, as a decimal string (leading zeros allowed) or a JSON integer. */
const amount = (description: string): JsonSchema => ({
  anyOf: [
    { type: 'string', pattern: `^0{0,64}${uintUpTo(BigInt(MAX_ORDER_AMOUNT), { positive: true })}$` },
    { type: 'integer', minimum: 1, maximum: MAX_ORDER_AMOUNT },
  ],
  description: `${description} Base units (6 decimals), 1 to ${MAX_ORDER_AMOUNT}.`,
});

/** bytes32 hex (0x optional), or "" / null / absent for zero. */
const bytes32 = (description: string): JsonSchema => ({
  anyOf: [{ type: 'string', pattern: `^${HEX_PREFIX}[0-9a-fA-F]{64}$` }, { type: 'string', enum: [''] }, { type: 'null' }],
  description: `${description} bytes32 hex; "" or null for zero.`,
});

const isType3 = { properties: { signatureType: { enum: [3, '3'] } }, required: ['signatureType'] };

/** The signed order (upstream-conventions §2.3); other keys (the V1 client's taker, nonce, feeRateBps) are ignored. */
export const SIGNED_ORDER: JsonSchema = {
  type: 'object',
  properties: {
    salt: uint('Signed salt.', undefined, true),
    maker: { type: 'string', pattern: ADDRESS_PATTERN, description: 'Account whose funds the order uses: 0x + 40 hex digits, any case.' },
    signer: { type: 'string', pattern: ADDRESS_PATTERN, description: "Signer: the address of the caller's API key." },
    tokenId: uint('Token id.'),
    makerAmount: amount('What the maker gives.'),
    takerAmount: amount('What the maker gets.'),
    side: { type: 'string', pattern: SIDE_PATTERN, description: 'BUY or SELL, any letter case.' },
    signatureType: { anyOf: [{ type: 'integer', enum: [0, 1, 2, 3] }, { type: 'string', pattern: '^[0-3]$' }], description: '0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE (these two need a maker authorisation from the operator), 3 POLY_1271 (refused: there is no chain to ask).' },
    timestamp: uint('Signing time, ms since the epoch; within the order timestamp window of the server clock.'),
    metadata: bytes32('Signed metadata.'),
    builder: bytes32('Builder code the order is attributed to.'),
    expiration: uint('Unix seconds; 0 or absent: none. Only GTD orders have one, in the future (the engine refuses otherwise).', BigInt(Number.MAX_SAFE_INTEGER)),
    signature: { type: 'string', pattern: `^${HEX_PREFIX}(?:[0-9a-fA-F]{2}){65,4096}$`, description: 'EIP-712 signature: 65 bytes of hex (0x optional) for signature types 0 to 2; 65 to 4096 bytes for type 3.' },
    conditionId: { anyOf: [{ type: 'null' }, { type: 'string', enum: [''] }, { type: 'string', pattern: CONDITION_ID_PATTERN }], description: "Optional: the token's market, checked when given." },
  },
  required: ['salt', 'maker', 'signer', 'tokenId', 'makerAmount', 'takerAmount', 'side', 'signatureType', 'timestamp', 'signature'],
  // A 65-byte signature unless the type is 3.
  if: isType3,
  else: { properties: { signature: { pattern: `^${HEX_PREFIX}[0-9a-fA-F]{130}$` } } },
};

const flag = (description: string): JsonSchema => ({ type: ['boolean', 'null'], description: `${description} null or absent: false.` });

/** One order of POST /order or of the POST /orders array. */
export const ORDER_ENVELOPE: JsonSchema = {
  type: 'object',
  properties: {
    order: SIGNED_ORDER,
    owner: { type: 'string', maxLength: 100, description: "The caller's API key." },
    orderType: { anyOf: [{ type: 'string', pattern: anyCase(['GTC', 'GTD', 'FOK', 'FAK']) }, { type: 'null' }], description: 'GTC, GTD, FOK or FAK, any letter case; null or absent: GTC. Post-only orders are GTC or GTD (the engine refuses otherwise).' },
    postOnly: flag('Rest only: an order that would cross the book is refused.'),
    deferExec: flag('Accepted for compatibility; no effect.'),
  },
  required: ['order', 'owner'],
};

/** POST /order. */
export const ORDER_BODY: JsonSchema = answering(ORDER_ENVELOPE, 'invalid_order_payload');

/** POST /orders: 1 to MAX_BATCH_ORDERS orders; one answer each. */
export const ORDERS_BODY: JsonSchema = answering(
  { type: 'array', items: ORDER_ENVELOPE, minItems: 1, maxItems: MAX_BATCH_ORDERS, description: `1 to ${MAX_BATCH_ORDERS} orders, each as the body of POST /order.` },
  'invalid_order_payload',
  { maxItems: 'too_many_orders', minItems: { code: 'invalid_order_payload', detail: 'the body must be a non-empty JSON array of orders' } },
);
