// Parses the `order` object of a POST /order body (upstream-conventions §2.3) into exact typed values, or
// says precisely what is wrong with it. Liberal where clients differ, strict where the signature depends on
// it:
// - uint256 fields (salt, tokenId, makerAmount, takerAmount, timestamp, expiration) as decimal strings, or as
//   JSON numbers when they are safe integers (salt always arrives as a number from the official clients; a
//   JSON number above 2^53 has already lost digits in JSON.parse, so it cannot match any signature and is
//   refused by name). Leading zeros are fine; the value must be below 2^256.
// - maker and signer: `0x` + 40 hex in any case (go-ethereum ignores the checksum too); returned checksummed.
// - side: "BUY" or "SELL" in any case. signatureType: 0 to 3, as a number or a one-digit string.
// - expiration: seconds, absent means "0". metadata and builder: bytes32 hex; "" or absent means zero.
// - signature: hex; 65 bytes for signature types 0 to 2, at least 65 bytes for type 3 (a wrapped ERC-1271
//   blob). Unknown extra keys (the V1 client's `taker`, `nonce`, `feeRateBps`) are ignored.
// Every problem found is reported, joined in `detail`; `error` is the public `Invalid order payload`.

import { checksumAddress } from './keccak.js';
import { failed, passed, type AuthResult } from './authResult.js';
import { bytesToHex, hexToBytes } from './hexBytes.js';
import type { OrderSide, OrderStruct, SignatureType } from './orderTypedData.js';

export const INVALID_ORDER_PAYLOAD = 'Invalid order payload';

export interface SignedOrder extends OrderStruct {
  /** Unix seconds; 0 = none. Not signed in V2. */
  readonly expiration: bigint;
  /** `0x` + lower-case hex. */
  readonly signature: string;
}

export const ZERO_BYTES32 = '0x' + '0'.repeat(64);
const UINT256_LIMIT = 2n ** 256n;
const DECIMAL = /^[0-9]{1,80}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MAX_SIGNATURE_BYTES = 4096;
// The forms clients send, already as parsing would give them back ('0x' + lower-case hex): taken as they are,
// without a decode and a re-encode (two buffers and a string per field, on every order).
const LOWER_BYTES32 = /^0x[0-9a-f]{64}$/;
const LOWER_SIGNATURE65 = /^0x[0-9a-f]{130}$/;

type Field = Readonly<Record<string, unknown>>;

function uint256(o: Field, name: string, problems: string[], absent?: bigint): bigint {
  const value = o[name];
  if (value === undefined && absent !== undefined) return absent;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    problems.push(`${name} must be a whole number from 0 to 2^53 - 1 when sent as a JSON number (send larger values as decimal strings)`);
    return 0n;
  }
  if (typeof value === 'string' && DECIMAL.test(value)) {
    const n = BigInt(value);
    if (n < UINT256_LIMIT) return n;
    problems.push(`${name} must be below 2^256`);
    return 0n;
  }
  problems.push(value === undefined ? `${name} is required` : `${name} must be a decimal string of digits`);
  return 0n;
}

function address(o: Field, name: string, problems: string[]): string {
  const value = o[name];
  if (typeof value === 'string' && ADDRESS.test(value)) return checksumAddress(value);
  problems.push(value === undefined ? `${name} is required` : `${name} must be an address: 0x + 40 hex digits`);
  return ZERO_BYTES32.slice(0, 42);
}

function side(o: Field, problems: string[]): OrderSide {
  const value = o.side;
  const upper = typeof value === 'string' ? value.toUpperCase() : undefined;
  if (upper === 'BUY' || upper === 'SELL') return upper;
  problems.push(value === undefined ? 'side is required' : 'side must be "BUY" or "SELL"');
  return 'BUY';
}

function signatureType(o: Field, problems: string[]): SignatureType {
  const value = o.signatureType;
  const n = typeof value === 'string' && /^[0-3]$/.test(value) ? Number(value) : value;
  if (n === 0 || n === 1 || n === 2 || n === 3) return n;
  problems.push(value === undefined ? 'signatureType is required' : 'signatureType must be 0 (EOA), 1 (POLY_PROXY), 2 (POLY_GNOSIS_SAFE) or 3 (POLY_1271)');
  return 0;
}

function bytes32(o: Field, name: string, problems: string[]): string {
  const value = o[name];
  if (value === undefined || value === '' || value === null) return ZERO_BYTES32;
  if (typeof value === 'string' && LOWER_BYTES32.test(value)) return value;
  const bytes = hexToBytes(value, 32);
  if (bytes !== undefined) return bytesToHex(bytes);
  problems.push(`${name} must be bytes32: 0x + 64 hex digits (or "" for zero)`);
  return ZERO_BYTES32;
}

function signature(o: Field, type: SignatureType, problems: string[]): string {
  const value = o.signature;
  if (type !== 3 && typeof value === 'string' && LOWER_SIGNATURE65.test(value)) return value;
  const bytes = hexToBytes(value, undefined, MAX_SIGNATURE_BYTES);
  if (bytes !== undefined && (type === 3 ? bytes.length >= 65 : bytes.length === 65)) return bytesToHex(bytes);
  if (value === undefined) problems.push('signature is required');
  else problems.push(type === 3 ? `signature must be hex of 65 to ${MAX_SIGNATURE_BYTES} bytes` : 'signature must be 65 bytes of hex: 0x + 130 hex digits');
  return '0x';
}

/** The typed order, or every problem with it. Never throws. */
export function parseOrderPayload(value: unknown): AuthResult<SignedOrder> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return failed(INVALID_ORDER_PAYLOAD, 'order must be a JSON object');
  const o = value as Field;
  if (o.timestamp === undefined && (o.nonce !== undefined || o.feeRateBps !== undefined)) {
    return failed(INVALID_ORDER_PAYLOAD, 'this is a V1 order (nonce/feeRateBps, no timestamp); this exchange takes V2 orders (GET /version answers 2)');
  }
  const problems: string[] = [];
  const type = signatureType(o, problems);
  const order: SignedOrder = {
    salt: uint256(o, 'salt', problems),
    maker: address(o, 'maker', problems),
    signer: address(o, 'signer', problems),
    tokenId: uint256(o, 'tokenId', problems),
    makerAmount: uint256(o, 'makerAmount', problems),
    takerAmount: uint256(o, 'takerAmount', problems),
    side: side(o, problems),
    signatureType: type,
    timestamp: uint256(o, 'timestamp', problems),
    metadata: bytes32(o, 'metadata', problems),
    builder: bytes32(o, 'builder', problems),
    expiration: uint256(o, 'expiration', problems, 0n),
    signature: signature(o, type, problems),
  };
  return problems.length === 0 ? passed(order) : failed(INVALID_ORDER_PAYLOAD, problems.join('; '));
}
