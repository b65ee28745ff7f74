// The value formats of api/schemas/formats.ts: each pattern, which the OpenAPI document states and the server
// validates with, accepts exactly what its definition says, compared with BigInt arithmetic on random and
// boundary strings (nothing running).

import t from 'tap';
import { anchored, anyCase, CURSOR_PATTERN, decimalUpTo, digitsAtMost, positiveDigitsAtMost, uintUpTo, UINT256_PATTERN, UNIX_SECONDS_PATTERN } from '../../api/schemas/formats.js';

let seed = 20261127;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');

/** Random digit strings around a maximum: its length ±1, with and without leading zeros, and the boundary. */
function samples(max: bigint, maxDigits: number): string[] {
  const s = max.toString();
  const out = ['0', '00', '1', s, (max + 1n).toString(), (max - 1n).toString(), `0${s}`, '', '-1', '1.0', ' 1'];
  for (let i = 0; i < 3000; i++) {
    const len = 1 + Math.floor(random() * (maxDigits + 1));
    let d = digits(len);
    if (random() < 0.3 && len >= s.length) d = s.slice(0, Math.max(0, len - 2)) + digits(Math.min(len, 2));
    out.push(d);
  }
  return out;
}

t.test('uintUpTo: 0 (or 1) to max, no leading zeros', async (t) => {
  for (const max of [9n, 10n, 57n, 100n, 4294967295n, 2n ** 52n, 2n ** 256n - 1n]) {
    for (const positive of [false, true]) {
      const re = new RegExp(anchored(uintUpTo(max, { positive })));
      const wrong = samples(max, max.toString().length).filter((v) => re.test(v) !== (/^(0|[1-9][0-9]*)$/.test(v) && BigInt(v) <= max && (!positive || BigInt(v) > 0n)));
      t.same(wrong.slice(0, 5), [], `max ${max}${positive ? ', positive' : ''}`);
    }
  }
});

t.test('digitsAtMost: 1 to n digits, leading zeros allowed, at most max', async (t) => {
  for (const [max, n] of [[2n ** 256n - 1n, 80], [99n, 4], [4294967295n, 12]] as const) {
    const re = new RegExp(anchored(digitsAtMost(max, n)));
    const wrong = samples(max, n + 1).filter((v) => re.test(v) !== (new RegExp(`^[0-9]{1,${n}}$`).test(v) && BigInt(v) <= max));
    t.same(wrong.slice(0, 5), [], `max ${max}, ${n} digits`);
  }
  for (const [max, n] of [[2n ** 52n, 16], [1000n, 6], [7n, 3]] as const) {
    const re = new RegExp(anchored(positiveDigitsAtMost(max, n)));
    const wrong = samples(max, n + 1).filter((v) => re.test(v) !== (new RegExp(`^[0-9]{1,${n}}$`).test(v) && BigInt(v) >= 1n && BigInt(v) <= max));
    t.same(wrong.slice(0, 5), [], `positive, max ${max}, ${n} digits`);
  }
  t.equal(new RegExp(UINT256_PATTERN).test((2n ** 256n - 1n).toString()), true);
  t.equal(new RegExp(UINT256_PATTERN).test((2n ** 256n).toString()), false);
  t.equal(new RegExp(UNIX_SECONDS_PATTERN).test('4294967295'), true);
  t.equal(new RegExp(UNIX_SECONDS_PATTERN).test('4294967296'), false);
  t.equal(new RegExp(UNIX_SECONDS_PATTERN).test('01'), false, 'no leading zeros');
});

t.test('decimalUpTo: at most 6 decimals, positive, at most the maximum in base units', async (t) => {
  for (const max of [2n ** 52n, 1_000_000n, 1_370_496n, 999_999_999n]) {
    const re = new RegExp(anchored(decimalUpTo(max, 6, { positive: true })));
    const values: string[] = ['0', '0.0', '0.000001', '0.0000001', '1', '1.', '.5', '01', '1.5', '1.000000'];
    const s = max.toString();
    const whole = s.slice(0, -6) || '0';
    for (let i = 0; i < 4000; i++) {
      const w = random() < 0.5 ? whole : String(Math.floor(random() * Number(whole) * 1.2));
      values.push(random() < 0.2 ? w : `${w}.${digits(1 + Math.floor(random() * 7))}`);
    }
    const truth = (v: string): boolean => {
      const m = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,6}))?$/.exec(v);
      if (m === null) return false;
      const units = BigInt(m[1] as string) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
      return units > 0n && units <= max;
    };
    const wrong = values.filter((v) => re.test(v) !== truth(v));
    t.same(wrong.slice(0, 5), [], `max ${max} base units`);
  }
});

t.test('anyCase and the cursor', async (t) => {
  const re = new RegExp(anyCase(['BUY', '1m']));
  t.same(['BUY', 'buy', 'bUy', '1m', '1M', 'BUYS', ' buy', ''].map((v) => re.test(v)), [true, true, true, true, true, false, false, false]);
  const cursor = new RegExp(CURSOR_PATTERN);
  for (let i = 0; i < 20000; i++) {
    const n = i < 10000 ? i : Math.floor(random() * 1e9);
    if (!cursor.test(Buffer.from(String(n)).toString('base64'))) t.fail(`the cursor of ${n}`);
  }
  t.same(['MA==', 'LTE=', 'NTAw', 'MDA3', 'OTk5OTk5OTk5'].map((c) => cursor.test(c)), [true, true, true, true, true], 'issued cursors, leading zeros included');
  t.same(['', 'MA', 'MB==', 'Og==', 'MTAwMDAwMDAwMA==', 'LTE', 'bm9wZQ=='].map((c) => cursor.test(c)), [false, false, false, false, false, false, false], 'anything else');
});
