// Strict hex decoding for signatures, digests and bytes32 fields: an optional `0x` prefix, then only hex
// digits, an even count, and (when asked) exactly the expected number of bytes. Anything else is undefined,
// never a partial decode (Buffer.from(text, 'hex') alone stops silently at the first bad character).

const HEX = /^[0-9a-fA-F]*$/;

/** The bytes of `text`, or undefined when it is not hex of `length` bytes (any even length when omitted). */
export function hexToBytes(text: unknown, length?: number, maxLength = 4096): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const digits = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (digits.length % 2 !== 0 || digits.length > maxLength * 2) return undefined;
  if (length !== undefined && digits.length !== length * 2) return undefined;
  if (!HEX.test(digits)) return undefined;
  return Buffer.from(digits, 'hex');
}

/** `0x` + lower-case hex. */
export function bytesToHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
