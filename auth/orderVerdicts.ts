// Signature verdicts that the header edge reaches for the orders of a POST /clob/order or /clob/orders it holds
// (api/http/edge/writeHold.ts), sent to the request thread on the request's head, one entry per order:
//
//   x-pmx-order-verdicts: s<64 hex>,-,n<64 hex>
//
// `s` / `n`: the order (the body itself for POST /order, the body's element at that index for POST /orders) has
// that EIP-712 hash in the standard / neg-risk exchange's domain, and its signature recovers to its signer; `-`:
// no verdict (the order is malformed, its signer policy fails, or its signature recovers in neither domain), and
// the request thread checks it as it does without the edge, so every refusal keeps its one text.
//
// Why: at a steady rate each held batch of orders crossed to the signature worker and back, two of the request
// thread's wake-ups per batch; the edge reads every byte of the request anyway, on a thread of its own. Under
// load nothing is held, so the edge reaches no verdicts and the workers batch the checks as before.
//
// Trust: the header is believed only on a connection from the edge (api/http/httpServer.ts drops it from any
// other), and the edge removes it from every client's head (edge/requestHead.ts). The verdicts are of the very
// bytes the request thread parses, by the same parser (parseOrderPayload after JSON.parse); the request thread
// uses one only when its domain is the order's market's.

import { parseOrderPayload } from './orderPayload.js';
import { signerPolicyProblem, verifyOrderSignature } from './orderSignature.js';
import type { OrderHasher } from './orderTypedData.js';

export const ORDER_VERDICTS_HEADER = 'x-pmx-order-verdicts';

/** Most orders the edge judges in one request (upstream's batch limit); a longer batch gets no verdicts. */
const MAX_ORDERS = 15;

export interface OrderVerdict {
  /** The domain the signature recovered in. */
  readonly negRisk: boolean;
  /** The EIP-712 hash, `0x` + 64 lower-case hex: the order's id. */
  readonly orderId: string;
}

const ENTRY = /^([sn])([0-9a-f]{64})$/;

/** One order's entry: `s`/`n` + its hash, or `-`. Never throws. */
export function verdictEntry(envelope: unknown, hasher: OrderHasher): string {
  if (envelope === null || typeof envelope !== 'object' || Array.isArray(envelope)) return '-';
  const parsed = parseOrderPayload((envelope as Readonly<Record<string, unknown>>).order);
  if (!parsed.ok || signerPolicyProblem(parsed.value) !== undefined) return '-';
  for (const negRisk of [false, true]) {
    let orderId: string;
    try {
      orderId = hasher.hash(parsed.value, negRisk);
    } catch {
      return '-';
    }
    if (verifyOrderSignature(parsed.value, orderId).ok) return (negRisk ? 'n' : 's') + orderId.slice(2);
  }
  return '-';
}

/** The header line (CRLF included) for a request body; undefined when no order of it has a verdict. Never throws. */
export function orderVerdictsLine(body: Buffer, hasher: OrderHasher): Buffer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const envelopes = Array.isArray(parsed) ? parsed : [parsed];
  if (envelopes.length === 0 || envelopes.length > MAX_ORDERS) return undefined;
  const entries = envelopes.map((e) => verdictEntry(e, hasher));
  if (entries.every((e) => e === '-')) return undefined;
  return Buffer.from(`${ORDER_VERDICTS_HEADER}: ${entries.join(',')}\r\n`, 'latin1');
}

/** The verdicts of a header's value, by the order's index (undefined: none for that order). */
export function readOrderVerdicts(value: string | undefined): readonly (OrderVerdict | undefined)[] {
  if (value === undefined || value === '') return [];
  return value.split(',', MAX_ORDERS).map((entry) => {
    const m = ENTRY.exec(entry.trim());
    return m === null ? undefined : { negRisk: m[1] === 'n', orderId: `0x${m[2] as string}` };
  });
}
