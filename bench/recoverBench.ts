// Signature recovery benchmark: how many order signatures per second one core checks with the native
// secp256k1 binding (auth/recoverSigner.ts) against ethers' pure-JS curve. Four measurements over the same
// signed V2 orders (32 wallets, distinct orders):
//   native_recover       recoverSigner(digest, signature): the curve work alone
//   native_verify_order  OrderHasher.hash + recover + compare: what the server does per order
//   ethers_recover       ethers recoverAddress(digest, signature)
//   ethers_verify_typed  ethers verifyTypedData(domain, types, order, signature)
// `ratio` = native_recover / ethers_verify_typed, the figure the issue sets a target for (>= 20);
// `verify_ratio` = native_verify_order / ethers_verify_typed is the like-for-like cost of checking an order
// (lower: both sides spend the same pure-JS keccak time on the struct, domain and address hashes);
// `recover_ratio` = native_recover / ethers_recover is the curve alone. Every result is checked: a wrong
// recovery fails the run. BENCH_RECOVER_SECONDS bounds each phase (default 1.5 s). The last line printed is
// one JSON object.

import { Wallet, getBytes, recoverAddress, verifyTypedData } from 'ethers';
import { ORDER_TYPES, OrderHasher, orderDomain, orderMessage, parseOrderPayload, recoverSigner, recoverSignerFromHex, type SignedOrder } from '../auth/index.js';
import { opsPerSecond } from './opsRate.js';

const SECONDS = Number(process.env.BENCH_RECOVER_SECONDS ?? 1.5);
const WALLETS = 32;
const ORDERS = 256;
const DOMAINS = { chainId: 137, exchangeAddress: '0xE111180000d2663C0091e4f400237545B87B996B', negRiskExchangeAddress: '0xe2222d279d744050d28e00520010520000310F59' };

interface Sample {
  readonly order: SignedOrder;
  readonly id: string;
  readonly digest: Uint8Array;
  readonly signature: Uint8Array;
  readonly signer: string;
}

async function samples(): Promise<Sample[]> {
  const hasher = new OrderHasher(DOMAINS);
  const wallets = Array.from({ length: WALLETS }, (_, i) => new Wallet('0x' + (BigInt(i + 1) * 0x1234567n).toString(16).padStart(64, '0')));
  const out: Sample[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const wallet = wallets[i % WALLETS] as Wallet;
    const unsigned = parseOrderPayload({
      salt: 1000 + i, maker: wallet.address, signer: wallet.address, tokenId: String(10n ** 70n + BigInt(i)), makerAmount: String(1_000_000 * (i + 1)),
      takerAmount: String(2_000_000 * (i + 1)), side: i % 2 === 0 ? 'BUY' : 'SELL', signatureType: 0, timestamp: String(1_710_000_000_000 + i), signature: '0x' + '00'.repeat(65),
    });
    if (!unsigned.ok) throw new Error(unsigned.detail);
    const signature = await wallet.signTypedData(orderDomain(DOMAINS, false), ORDER_TYPES, orderMessage(unsigned.value));
    const order = { ...unsigned.value, signature };
    const id = hasher.hash(order, false);
    out.push({ order, id, digest: getBytes(id), signature: getBytes(signature), signer: wallet.address });
  }
  return out;
}

/** Operations per second of `one` over the samples (bench/opsRate.ts). */
function rate(list: readonly Sample[], one: (s: Sample) => boolean): number {
  return opsPerSecond(list, SECONDS, one, (s) => `order ${s.id}`);
}

async function main(): Promise<void> {
  const list = await samples();
  const hasher = new OrderHasher(DOMAINS);
  const domain = orderDomain(DOMAINS, false);
  const lower = new Map(list.map((s) => [s, s.signer.toLowerCase()]));
  const nativeRecover = rate(list, (s) => {
    const r = recoverSigner(s.digest, s.signature);
    return r.ok && r.value === lower.get(s);
  });
  const nativeVerify = rate(list, (s) => {
    const r = recoverSignerFromHex(hasher.hash(s.order, false), s.order.signature);
    return r.ok && r.value === lower.get(s);
  });
  const ethersRecover = rate(list, (s) => recoverAddress(s.digest, s.order.signature) === s.signer);
  const ethersVerify = rate(list, (s) => verifyTypedData(domain, ORDER_TYPES, orderMessage(s.order), s.order.signature) === s.signer);
  const summary = {
    bench: 'recover',
    orders: list.length,
    native_recover_per_sec: Math.round(nativeRecover),
    native_verify_order_per_sec: Math.round(nativeVerify),
    ethers_recover_per_sec: Math.round(ethersRecover),
    ethers_verify_typed_per_sec: Math.round(ethersVerify),
    ratio: Number((nativeRecover / ethersVerify).toFixed(1)),
    verify_ratio: Number((nativeVerify / ethersVerify).toFixed(1)),
    recover_ratio: Number((nativeRecover / ethersRecover).toFixed(1)),
    target_ratio: 20,
    target_met: nativeRecover / ethersVerify >= 20,
  };
  console.log(`native secp256k1: ${summary.native_recover_per_sec}/s recoveries, ${summary.native_verify_order_per_sec}/s order verifications (hash + recover)`);
  console.log(`ethers:           ${summary.ethers_recover_per_sec}/s recoverAddress, ${summary.ethers_verify_typed_per_sec}/s verifyTypedData`);
  console.log(JSON.stringify(summary));
}

await main();
