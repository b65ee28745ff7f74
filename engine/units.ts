// Integer units of the engine. Contract: every amount and price inside engine/ is a safe integer; floats
// appear only when a value is formatted for a human (see formatUnits).
//
// - Amounts (collateral and outcome tokens) are base units of 6 decimals: 1_000_000 = one USDC or one share.
// - Prices are micro-collateral per whole share: 1_000_000 = 1.0, so a YES price p and its NO mirror
//   1_000_000 - p add up exactly.
// - Token quantities of orders and fills are whole lots of 0.01 share. With every tick a multiple of 0.0001,
//   the cash of a fill, lots × price, is then an exact integer: settlement never rounds.

/** Base units per share or per unit of collateral. */
export const UNIT = 1_000_000;
/** Price of certainty (1.0) in price units. */
export const PRICE_ONE = 1_000_000;
/** Smallest token quantity an order or a fill may carry (0.01 share). */
export const LOT = 10_000;
/** Finest tick the engine supports (0.0001). Every tick is a multiple of it. */
export const MIN_TICK = 100;
/** Largest maker or taker amount of one order (one billion shares or USDC). Keeps all products safe. */
export const MAX_ORDER_AMOUNT = 1_000_000_000_000_000;
/** Largest balance any account or market may hold; deposits beyond it are refused. */
export const MAX_BALANCE = 2 ** 52;
/**
 * Zero as the first value of an amount field that can outgrow V8's small integers (2^31 base units: 2,147 shares
 * or USDC), such as a price level's size or a balance. V8 lays a field out for the first value stored in it; a
 * small integer there is turned into a double once a sum passes 2^31, which changes the hidden class of every
 * object of that kind and drops the optimised code that used the field, in every thread that runs it. Negative
 * zero is a double from the start, and is 0 to every comparison, sum and text (`${-0}` and JSON give "0").
 */
export const AMOUNT_ZERO = -0;
/** Fees are given in basis points of the notional. */
export const BPS = 10_000;

/** A tick is valid when it is a multiple of MIN_TICK, divides 1.0 exactly and is below 0.5. */
export function isValidTick(tick: number): boolean {
  return Number.isSafeInteger(tick) && tick >= MIN_TICK && tick < PRICE_ONE / 2 && tick % MIN_TICK === 0 && PRICE_ONE % tick === 0;
}

/**
 * Collateral for `qty` tokens at `price`. Exact because qty is a multiple of LOT and price of MIN_TICK:
 * qty × price / 1e6 = (qty / LOT) × (price / MIN_TICK). Both factors stay far below 2^53.
 */
export function cost(qty: number, price: number): number {
  return (qty / LOT) * (price / MIN_TICK);
}

/** floor(amount × bps / 10_000) without leaving safe-integer range for any amount below 2^53. */
export function feeOf(amount: number, bps: number): number {
  if (bps === 0) return 0; // the common case, without the divisions
  const high = Math.floor(amount / BPS);
  const low = amount - high * BPS;
  return high * bps + Math.floor((low * bps) / BPS);
}

/** 10^k for k = 0..6, so the per-order decimal checks below do not call Math.pow. */
const POW10: readonly number[] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/** Number of decimals of a tick (0.01 → 2, 0.005 → 3, 0.0025 → 4). */
export function tickDecimals(tick: number): number {
  let decimals = 0;
  while (decimals < 6 && (tick * (POW10[decimals] as number)) % PRICE_ONE !== 0) decimals += 1;
  return decimals;
}

/** True when a base-unit amount has at most `decimals` decimals as a number of shares or USDC. */
export function hasAtMostDecimals(amount: number, decimals: number): boolean {
  if (decimals >= 6) return true;
  return amount % (POW10[6 - decimals] ?? 10 ** (6 - decimals)) === 0;
}

/** Formats base units (or price units) as a plain decimal string: 1_500_000 → "1.5", 10_000 → "0.01". */
export function formatUnits(value: number): string {
  const negative = value < 0;
  const abs = Math.abs(value);
  const whole = Math.floor(abs / UNIT);
  const frac = abs - whole * UNIT;
  let text = String(whole);
  if (frac !== 0) text += '.' + String(frac).padStart(6, '0').replace(/0+$/, '');
  return negative ? '-' + text : text;
}

/** Largest multiple of `step` not above `value`. */
export function floorTo(value: number, step: number): number {
  return value - (value % step);
}

/** Operands up to this bound keep every intermediate of the number path of mulDivFloor/Ceil exact. */
const EXACT_BOUND = 2 ** 51;

/** floor(n / d) for 0 <= n <= 2^52 and 0 < d <= 2^51: the float quotient, corrected to the exact floor. */
function floorDivSmall(n: number, d: number): number {
  const q = Math.floor(n / d);
  const r = n - q * d; // exact: q × d <= n + d < 2^53
  return r < 0 ? q - 1 : r >= d ? q + 1 : q;
}

/**
 * floor(a × b / c), exact, for non-negative safe integers a, b and a positive safe integer c. In plain
 * numbers while a × b stays far inside the exact range (the usual case), in BigInt beyond it.
 */
export function mulDivFloor(a: number, b: number, c: number): number {
  const product = a * b; // exact when it is <= 2^51 (a rounded product above 2^53 cannot fall that low)
  if (product <= EXACT_BOUND && c <= EXACT_BOUND) return floorDivSmall(product, c);
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

/** ceil(a × b / c), exact, under the same conditions as mulDivFloor. */
export function mulDivCeil(a: number, b: number, c: number): number {
  const product = a * b;
  if (product <= EXACT_BOUND && c <= EXACT_BOUND) return floorDivSmall(product + c - 1, c);
  return Number((BigInt(a) * BigInt(b) + BigInt(c) - 1n) / BigInt(c));
}
