// trunc(a × b / c) exactly, for safe integers whose product may pass 2^53: what
// Number(BigInt(a) * BigInt(b) / BigInt(c)) gives, without BigInt in the common case.
//
// Fast path (a, b >= 0, c > 0, a × b + c a safe integer): the product is exact as a double, the quotient
// correctly rounded, and its floor off by at most one when the true quotient is within half an ulp of an
// integer, so it is corrected by one exact comparison each way (q × c and (q + 1) × c stay below 2^53).
// Anything else (a negative operand, a product past 2^53) takes the BigInt path, whose division truncates
// toward zero.

export function mulDiv(a: number, b: number, c: number): number {
  const product = a * b;
  if (a >= 0 && b >= 0 && c > 0 && Number.isSafeInteger(product) && Number.isSafeInteger(product + c)) {
    let q = Math.floor(product / c);
    if (q * c > product) q -= 1;
    else if ((q + 1) * c <= product) q += 1;
    return q;
  }
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}
