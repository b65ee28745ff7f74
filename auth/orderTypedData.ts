// The EIP-712 V2 order of the CTF exchange (upstream-conventions §2.1): domain, struct and hash. The hash is
// the order id the API returns (`orderID`, `0x` + 64 hex) and the digest the maker's signer signs.
//
// The domain's verifying contract depends on the market: neg-risk markets settle on their own exchange, so
// the same order signed for the other exchange has another id and does not verify.
//
// OrderHasher computes exactly TypedDataEncoder.hash(orderDomain(...), ORDER_TYPES, orderMessage(order)) (the
// tests hold it to that on the upstream vector and on random orders) but encodes the struct itself: the
// struct has only static fields, so its encoding is twelve 32-byte words (type hash, then each field
// left-padded), hashed with the native keccak256 (keccak.ts). That is many times faster than ethers' generic encoder,
// whose cost was most of the time of verifying an order (see bench/recoverBench.ts). The two domain
// separators come from ethers' TypedDataEncoder.hashDomain, once per hasher.

import { TypedDataEncoder, getAddress, id, type TypedDataDomain, type TypedDataField } from 'ethers';
import { keccak256 } from './keccak.js';

export const ORDER_DOMAIN_NAME = 'Polymarket CTF Exchange';
export const ORDER_DOMAIN_VERSION = '2';

/** `Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)` */
export const ORDER_TYPES: Record<string, TypedDataField[]> = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
};

/** The settings that fix the domains (config/settings.ts: chainId, exchangeAddress, negRiskExchangeAddress). */
export interface OrderDomainConfig {
  readonly chainId: number;
  readonly exchangeAddress: string;
  readonly negRiskExchangeAddress: string;
}

export type OrderSide = 'BUY' | 'SELL';

/** 0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE, 3 POLY_1271. */
export type SignatureType = 0 | 1 | 2 | 3;

/** The signed fields, exact: uint256 values as bigint, addresses checksummed, bytes32 as `0x` + 64 hex. */
export interface OrderStruct {
  readonly salt: bigint;
  readonly maker: string;
  readonly signer: string;
  readonly tokenId: bigint;
  readonly makerAmount: bigint;
  readonly takerAmount: bigint;
  readonly side: OrderSide;
  readonly signatureType: SignatureType;
  /** ms since the epoch. */
  readonly timestamp: bigint;
  readonly metadata: string;
  readonly builder: string;
}

export function orderDomain(config: OrderDomainConfig, negRisk: boolean): TypedDataDomain {
  return {
    name: ORDER_DOMAIN_NAME,
    version: ORDER_DOMAIN_VERSION,
    chainId: config.chainId,
    verifyingContract: getAddress((negRisk ? config.negRiskExchangeAddress : config.exchangeAddress).toLowerCase()),
  };
}

/** The typed-data message as signers see it: side numeric (BUY 0, SELL 1). */
export function orderMessage(order: OrderStruct): Record<string, string | number | bigint> {
  return {
    salt: order.salt,
    maker: order.maker,
    signer: order.signer,
    tokenId: order.tokenId,
    makerAmount: order.makerAmount,
    takerAmount: order.takerAmount,
    side: order.side === 'BUY' ? 0 : 1,
    signatureType: order.signatureType,
    timestamp: order.timestamp,
    metadata: order.metadata,
    builder: order.builder,
  };
}

const UINT256_LIMIT = 2n ** 256n;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ORDER_TYPE_HASH = Buffer.from(id(TypedDataEncoder.from(ORDER_TYPES).encodeType('Order')).slice(2), 'hex');

function putUint(out: Buffer, word: number, value: bigint, name: string): void {
  if (typeof value !== 'bigint' || value < 0n || value >= UINT256_LIMIT) throw new RangeError(`${name} is not a uint256`);
  // Only the value's own bytes, right-aligned: the word's leading zeros are already there (see encodeOrderStruct).
  const hex = value.toString(16);
  const bytes = (hex.length + 1) >> 1;
  out.write(hex.length % 2 === 0 ? hex : `0${hex}`, word * 32 + 32 - bytes, 'hex');
}

function putHex(out: Buffer, word: number, value: string, pattern: RegExp, bytes: number, name: string): void {
  if (typeof value !== 'string' || !pattern.test(value)) throw new RangeError(`${name} is not ${bytes === 20 ? 'an address' : 'bytes32'}`);
  out.write(value.slice(2), word * 32 + 32 - bytes, 'hex');
}

/** The EIP-712 `encodeData` of an order: typeHash ‖ the eleven fields, each one 32-byte word. Throws on values out of range. */
/** Bytes of encodeOrderStruct's output. */
export const ORDER_STRUCT_BYTES = 12 * 32;

/** `out`, when given, must be ORDER_STRUCT_BYTES of zeros (padding is not written). */
export function encodeOrderStruct(order: OrderStruct, out: Buffer = Buffer.alloc(ORDER_STRUCT_BYTES)): Buffer {
  ORDER_TYPE_HASH.copy(out, 0);
  putUint(out, 1, order.salt, 'salt');
  putHex(out, 2, order.maker, ADDRESS, 20, 'maker');
  putHex(out, 3, order.signer, ADDRESS, 20, 'signer');
  putUint(out, 4, order.tokenId, 'tokenId');
  putUint(out, 5, order.makerAmount, 'makerAmount');
  putUint(out, 6, order.takerAmount, 'takerAmount');
  if (order.side !== 'BUY' && order.side !== 'SELL') throw new RangeError('side is not BUY or SELL');
  out[7 * 32 + 31] = order.side === 'BUY' ? 0 : 1;
  if (![0, 1, 2, 3].includes(order.signatureType)) throw new RangeError('signatureType is not 0 to 3');
  out[8 * 32 + 31] = order.signatureType;
  putUint(out, 9, order.timestamp, 'timestamp');
  putHex(out, 10, order.metadata, BYTES32, 32, 'metadata');
  putHex(out, 11, order.builder, BYTES32, 32, 'builder');
  return out;
}

export class OrderHasher {
  private readonly standardDomain: Buffer;
  private readonly negRiskDomain: Buffer;

  /** Throws (at start-up) when the configured addresses are not addresses. */
  constructor(readonly config: OrderDomainConfig) {
    this.standardDomain = Buffer.from(TypedDataEncoder.hashDomain(orderDomain(config, false)).slice(2), 'hex');
    this.negRiskDomain = Buffer.from(TypedDataEncoder.hashDomain(orderDomain(config, true)).slice(2), 'hex');
  }

  /**
   * The order id: the EIP-712 digest of `order` in the domain of a neg-risk or a standard market,
   * keccak256(0x1901 ‖ domain separator ‖ keccak256(encodeOrderStruct(order))). Expects a struct from
   * parseOrderPayload; throws RangeError on values out of range.
   */
  hash(order: OrderStruct, negRisk: boolean): string {
    return '0x' + this.digestOfStruct(encodeOrderStruct(order), negRisk).toString('hex');
  }

  /** The digest of an order already encoded by encodeOrderStruct (384 bytes), as 32 bytes. */
  digestOfStruct(encoded: Uint8Array, negRisk: boolean): Buffer {
    const message = Buffer.alloc(66);
    message[0] = 0x19;
    message[1] = 0x01;
    (negRisk ? this.negRiskDomain : this.standardDomain).copy(message, 2);
    keccak256(encoded).copy(message, 34);
    return keccak256(message);
  }
}
