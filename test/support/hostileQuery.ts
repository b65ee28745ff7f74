// Query-string generators for the hostile-input tests: known and odd keys, odd values percent-encoded byte by
// byte (always a valid request target), raw malformed escapes and separators.

import fc from 'fast-check';

/** Pieces sent without encoding: malformed escapes and separators (visible ASCII only, no '#'). */
export const RAW_PIECES = ['%', '%%', '%zz', '%E0%A4%A', '%00', '%FF', '%C0%AF', '%ED%A0%80', '%2C', '+', ',', '&', '=', '==', '&&', '?', '/', '..', '%2F', ';', '[', ']', '%25'];

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD): always a valid target. */
export const enc = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');

/** A hostile query value, ready to put after `=`. */
export function queryValueArb(oddValues: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...oddValues).map(enc) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(enc) },
    { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map((n) => enc(String(n))) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...RAW_PIECES, 'a', '1', '0x'), { maxLength: 6 }).map((p) => p.join('')) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFx'), minLength: 2, maxLength: 70 }).map((s) => '0x' + s) },
  );
}

/** One `key=value` (or bare `key`) pair of a hostile query string, with values from `textArb`. */
export function queryPairArb(textArb: fc.Arbitrary<string>, knownKeys: readonly string[], oddKeys: readonly string[]): fc.Arbitrary<string> {
  const keyArb = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...knownKeys) },
    { weight: 1, arbitrary: fc.constantFrom(...oddKeys).map(enc) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(enc) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_PIECES) },
  );
  return fc.tuple(keyArb, fc.option(textArb, { nil: undefined })).map(([k, v]) => (v === undefined ? k : `${k}=${v}`));
}
