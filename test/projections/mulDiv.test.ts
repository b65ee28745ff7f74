// mulDiv (projections/mulDiv.ts) equals the BigInt computation it replaces on every input, around 2^53 and
// on both sides of its fast path.

import t from 'tap';
import fc from 'fast-check';
import { mulDiv } from '../../projections/mulDiv.js';

const reference = (a: number, b: number, c: number): number => Number((BigInt(a) * BigInt(b)) / BigInt(c));
const safe = fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const small = fc.integer({ min: 0, max: 2 ** 31 });
const divisor = fc.oneof(fc.integer({ min: 1, max: 2 ** 26 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));

t.test('equals BigInt arithmetic', (t) => {
  fc.assert(fc.property(safe, safe, divisor, (a, b, c) => mulDiv(a, b, c) === reference(a, b, c)), { numRuns: 20_000 });
  fc.assert(fc.property(small, small, divisor, (a, b, c) => mulDiv(a, b, c) === reference(a, b, c)), { numRuns: 20_000 });
  // Quotients just below an integer, where a rounded double quotient would floor one too high.
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 20 }), fc.integer({ min: 2 ** 12, max: 2 ** 30 }), (k, c) => {
      const product = k * c - 1;
      return mulDiv(product, 1, c) === reference(product, 1, c) && mulDiv(1, product, c) === k - 1;
    }),
    { numRuns: 20_000 },
  );
  for (const [a, b, c] of [[2 ** 26, 2 ** 27, 3], [2 ** 26, 2 ** 27 - 1, 7], [Number.MAX_SAFE_INTEGER, 1, 1], [Number.MAX_SAFE_INTEGER, 2, 3], [0, 5, 1], [7, 0, 3]] as const) {
    t.equal(mulDiv(a, b, c), reference(a, b, c), `${a} × ${b} / ${c}`);
  }
  t.end();
});
