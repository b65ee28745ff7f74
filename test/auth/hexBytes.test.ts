// hexToBytes accepts exactly what its contract names (an optional 0x or 0X, then an even count of hex digits
// in any case, of the length asked) and answers undefined for anything else, never a partial decode: a
// character that is not a hex digit at any position, in either half of a pair, refuses the whole text.

import t from 'tap';
import { bytesToHex, hexToBytes } from '../../auth/hexBytes.js';

const hex = (n: number): string => Array.from({ length: n }, (_, i) => ((i * 37 + n) & 0xff).toString(16).padStart(2, '0')).join('');

t.test('valid texts decode whole', async (tt) => {
  for (const n of [0, 1, 20, 32, 65, 200]) {
    const digits = hex(n);
    const want = Buffer.from(digits, 'hex');
    for (const text of [digits, `0x${digits}`, `0X${digits}`, `0x${digits.toUpperCase()}`]) {
      tt.same(Buffer.from(hexToBytes(text) ?? []), want, `${n} bytes: ${text.slice(0, 6)}…`);
      tt.same(Buffer.from(hexToBytes(text, n) ?? []), want, `${n} bytes, length asked`);
    }
  }
  tt.equal(bytesToHex(hexToBytes('0xABcd01') as Uint8Array), '0xabcd01');
});

t.test('any character that is not a hex digit refuses the text', async (tt) => {
  const digits = hex(65);
  for (let at = 0; at < digits.length; at++) {
    for (const bad of ['g', 'x', ' ', '-', 'é', 'ａ', '\u0000']) {
      const text = `0x${digits.slice(0, at)}${bad}${digits.slice(at + 1)}`;
      tt.equal(hexToBytes(text, bad.length === 1 ? 65 : undefined), undefined, `${JSON.stringify(bad)} at ${at}`);
    }
  }
});

t.test('lengths, prefixes and types', async (tt) => {
  tt.equal(hexToBytes('abc'), undefined, 'odd count');
  tt.equal(hexToBytes('0xabc'), undefined, 'odd count after the prefix');
  tt.equal(hexToBytes('0x' + hex(31), 32), undefined, 'fewer bytes than asked');
  tt.equal(hexToBytes('0x' + hex(33), 32), undefined, 'more bytes than asked');
  tt.equal(hexToBytes('0x' + hex(11), undefined, 10), undefined, 'over maxLength');
  tt.ok(hexToBytes('0x' + hex(10), undefined, 10), 'at maxLength');
  tt.equal(hexToBytes('x0' + hex(2)), undefined, 'a prefix written backwards');
  tt.equal(hexToBytes('0x0x' + hex(2)), undefined, 'a second prefix');
  tt.same(Buffer.from(hexToBytes('0x') ?? [1]), Buffer.alloc(0), 'the prefix alone is zero bytes');
  for (const value of [undefined, null, 12, {}, ['ab'], Buffer.from('ab')]) tt.equal(hexToBytes(value), undefined, `not a string: ${typeof value}`);
});
