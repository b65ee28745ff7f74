// Strict hex decoding for signatures, digests and bytes32 fields: an optional `0x` prefix, then only hex
// digits, an even count, and (when asked) exactly the expected number of bytes. Anything else is undefined,
// never a partial decode.

/** The bytes of `text`, or undefined when it is not hex of `length` bytes (any even length when omitted). */
export function hexToBytes(text: unknown, length?: number, maxLength = 4096): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const prefixed = text.startsWith('0x') || text.startsWith('0X');
  const digits = prefixed ? text.length - 2 : text.length;
  if (digits % 2 !== 0 || digits > maxLength * 2) return undefined;
  if (length !== undefined && digits !== length * 2) return undefined;
  // Buffer's hex decoding stops at the first pair that is not two hex digits, so of a text of ASCII characters a
  // whole decode is a valid one (a regular expression over the digits first cost more than the decoding). It
  // reads only the low byte of a character beyond Latin-1 ('ａ', U+FF41, would pass for 'A'): those go first.
  if (Buffer.byteLength(text, 'utf8') !== text.length) return undefined;
  const bytes = Buffer.from(prefixed ? text.slice(2) : text, 'hex');
  return bytes.length * 2 === digits ? bytes : undefined;
}

/** `0x` + lower-case hex. */
export function bytesToHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
