// Byte-level HTTP/1.1 syntax shared by the request framer and the response tracker, narrowed to what
// uWebSockets.js 20.30 parses the same way we do. Measured on that build: a header name with any byte
// outside [A-Za-z0-9-] makes it drop the request silently, as do more than 48 header fields; so the edge
// maps `_` to `-` and refuses the other token characters rather than forward them.

export const CR = 0x0d;
export const LF = 0x0a;
export const SP = 0x20;
export const HT = 0x09;
export const COLON = 0x3a;
export const UNDERSCORE = 0x5f;
export const HYPHEN = 0x2d;

export const CRLF = Buffer.from('\r\n', 'latin1');
export const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
export const LFLF = Buffer.from('\n\n', 'latin1');

/** The most header fields uWS 20.30 accepts in one request (measured: 48 works, 49 is dropped). */
export const UWS_MAX_HEADER_FIELDS = 48;

function table(pred: (b: number) => boolean): Uint8Array {
  const t = new Uint8Array(256);
  for (let b = 0; b < 256; b++) t[b] = pred(b) ? 1 : 0;
  return t;
}

const isAlnum = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

/** Header-name bytes the edge forwards: alphanumerics, `-`, and `_` (rewritten to `-`). */
export const NAME_BYTE = table((b) => isAlnum(b) || b === HYPHEN || b === UNDERSCORE);
/** field-value bytes: HT, SP, VCHAR, obs-text. No CR, LF, NUL or other controls. */
export const VALUE_BYTE = table((b) => b === HT || (b >= 0x20 && b !== 0x7f));
/** tchar (RFC 9110 §5.6.2): the bytes of a method token. */
export const TCHAR = table((b) => isAlnum(b) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(b)));
/** request-target bytes: visible ASCII (origin-form, already percent-encoded). */
export const TARGET_BYTE = table((b) => b > 0x20 && b < 0x7f);
export const HEX_VALUE = (() => {
  const t = new Int8Array(256).fill(-1);
  for (let i = 0; i < 10; i++) t[0x30 + i] = i;
  for (let i = 0; i < 6; i++) {
    t[0x41 + i] = 10 + i;
    t[0x61 + i] = 10 + i;
  }
  return t;
})();

/** Whether `buf[start, end)` equals the lower-case ASCII `name`, reading `_` as `-` and ignoring case. */
export function nameIs(buf: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    let b = buf[start + i] ?? 0;
    if (b >= 0x41 && b <= 0x5a) b += 0x20;
    else if (b === UNDERSCORE) b = HYPHEN;
    if (b !== name.charCodeAt(i)) return false;
  }
  return true;
}

/** `buf[start, end)` without leading and trailing SP/HT (OWS), as a latin1 string. */
export function trimmedValue(buf: Buffer, start: number, end: number): string {
  while (start < end && (buf[start] === SP || buf[start] === HT)) start++;
  while (end > start && (buf[end - 1] === SP || buf[end - 1] === HT)) end--;
  return buf.toString('latin1', start, end);
}
