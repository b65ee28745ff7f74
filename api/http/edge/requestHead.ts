// One request head, complete with its CRLFCRLF: validated, its framing decided, and rewritten for uWS.
//
// Contract: the head forwarded is the client's head with (1) `_` replaced by `-` in every header name,
// (2) every client-sent x-pmx-client-ip removed, (3) a repeated identical Content-Length kept once,
// (4) Transfer-Encoding written as `transfer-encoding: chunked`, and (5) `x-pmx-client-ip: <ip>` added
// last. Framing is decided on the names as uWS will see them, so `Content_Length` counts as a
// Content-Length. When (1)-(4) change nothing, the head goes out as a view of the input followed by the
// per-connection IP line (no copy).
//
// Refused (never forwarded): anything not framed unambiguously (RFC 9112 §6.3: CL with TE, differing
// CLs, a non-decimal CL, a transfer coding other than chunked, obs-fold, bare CR/LF, whitespace before
// the colon) and what uWS 20.30 would silently drop: a name byte outside [A-Za-z0-9_-], no or several
// Host fields, a request-target not in origin form, a version other than HTTP/1.1, more than 48 fields
// once the IP line is added, an upgrade request with a body.

import type { EdgeErrorCode } from './edgeErrors.js';
import { COLON, CRLF, NAME_BYTE, SP, TARGET_BYTE, UNDERSCORE, UWS_MAX_HEADER_FIELDS, VALUE_BYTE, nameIs, trimmedValue } from './httpSyntax.js';

export const CLIENT_IP_HEADER = 'x-pmx-client-ip';
/** uWS 20.30 closes the connection on a Content-Length of 10 digits or more (measured). */
export const UWS_MAX_CONTENT_LENGTH = 999_999_999;

export type BodyFraming =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' };

export type ParsedRequestHead =
  | {
      readonly kind: 'request';
      /** What to forward, in order. */
      readonly pieces: readonly Buffer[];
      readonly body: BodyFraming;
      readonly upgrade: boolean;
      /** Some header name had an underscore. */
      readonly underscores: boolean;
    }
  | { readonly kind: 'error'; readonly code: EdgeErrorCode };

const NONE: BodyFraming = { kind: 'none' };
const CHUNKED: BodyFraming = { kind: 'chunked' };
const TE_LINE = Buffer.from('transfer-encoding: chunked\r\n', 'latin1');

const fail = (code: EdgeErrorCode): ParsedRequestHead => ({ kind: 'error', code });

/** The IP line and the empty line that ends the head: `x-pmx-client-ip: <ip>\r\n\r\n`. */
export function clientIpTail(ip: string): Buffer {
  return Buffer.from(`${CLIENT_IP_HEADER}: ${ip}\r\n\r\n`, 'latin1');
}

/** `head` ends with CRLFCRLF and does not start with CR or LF. */
export function parseRequestHead(head: Buffer, ipTail: Buffer): ParsedRequestHead {
  const lineEnd = head.indexOf(CRLF);
  const lineError = checkRequestLine(head, lineEnd);
  if (lineError !== undefined) return fail(lineError);

  const last = head.length - 2;
  let fields = 0;
  let dropped = 0;
  let hosts = 0;
  let underscores = false;
  let rewrite = false;
  let upgrade = false;
  let contentLength = -1;
  let chunked = false;
  for (let pos = lineEnd + 2; pos < last; ) {
    const end = head.indexOf(CRLF, pos);
    let i = pos;
    while (i < end && NAME_BYTE[head[i] as number] === 1) {
      if (head[i] === UNDERSCORE) underscores = true;
      i++;
    }
    // Also refuses obs-fold (a leading SP/HT), an empty name and whitespace before the colon.
    if (i === pos || head[i] !== COLON) return fail('malformed_request');
    for (let j = i + 1; j < end; j++) if (VALUE_BYTE[head[j] as number] !== 1) return fail('malformed_request');
    fields++;
    switch (i - pos) {
      case 4:
        if (nameIs(head, pos, i, 'host')) hosts++;
        break;
      case 7:
        if (nameIs(head, pos, i, 'upgrade')) upgrade = true;
        break;
      case 14:
        if (nameIs(head, pos, i, 'content-length')) {
          const value = trimmedValue(head, i + 1, end);
          if (!/^[0-9]{1,9}$/.test(value)) return fail(/^[0-9]+$/.test(value) && Number(value) > UWS_MAX_CONTENT_LENGTH ? 'body_too_large' : 'malformed_request');
          const n = Number(value);
          if (contentLength >= 0) {
            if (n !== contentLength) return fail('malformed_request');
            dropped++;
            rewrite = true;
          }
          contentLength = n;
        }
        break;
      case 15:
        if (nameIs(head, pos, i, CLIENT_IP_HEADER)) {
          dropped++;
          rewrite = true;
        }
        break;
      case 17:
        if (nameIs(head, pos, i, 'transfer-encoding')) {
          const value = trimmedValue(head, i + 1, end);
          if (chunked || value.toLowerCase() !== 'chunked') return fail('malformed_request');
          chunked = true;
          if (value !== 'chunked') rewrite = true;
        }
        break;
    }
    pos = end + 2;
  }
  if (hosts !== 1 || (chunked && contentLength >= 0)) return fail('malformed_request');
  if (fields - dropped + 1 > UWS_MAX_HEADER_FIELDS) return fail('header_too_large');
  const body: BodyFraming = chunked ? CHUNKED : contentLength > 0 ? { kind: 'length', length: contentLength } : NONE;
  if (upgrade && body !== NONE) return fail('malformed_request');
  const forwarded = rewrite || underscores ? rewriteHead(head, lineEnd) : head.subarray(0, last);
  return { kind: 'request', pieces: [forwarded, ipTail], body, upgrade, underscores };
}

/** `METHOD SP origin-form SP HTTP/1.1`, method in upper-case letters. */
function checkRequestLine(head: Buffer, end: number): EdgeErrorCode | undefined {
  let i = 0;
  while (i < end && (head[i] as number) >= 0x41 && (head[i] as number) <= 0x5a) i++;
  if (i === 0 || head[i] !== SP || head[i + 1] !== 0x2f) return 'malformed_request';
  for (i += 2; i < end && TARGET_BYTE[head[i] as number] === 1; ) i++;
  if (head[i] !== SP) return 'malformed_request';
  const version = head.toString('latin1', i + 1, end);
  if (version === 'HTTP/1.1') return undefined;
  return /^HTTP\/[0-9]\.[0-9]$/.test(version) ? 'version_not_supported' : 'malformed_request';
}

/** The slow path, on an already validated head: everything but the final empty line, rewritten. */
function rewriteHead(head: Buffer, lineEnd: number): Buffer {
  const out = Buffer.allocUnsafe(head.length + TE_LINE.length);
  let o = head.copy(out, 0, 0, lineEnd + 2);
  let seenContentLength = false;
  for (let pos = lineEnd + 2; pos < head.length - 2; ) {
    const end = head.indexOf(CRLF, pos);
    const colon = head.indexOf(COLON, pos);
    const next = end + 2;
    if (nameIs(head, pos, colon, CLIENT_IP_HEADER)) {
      pos = next;
      continue;
    }
    if (nameIs(head, pos, colon, 'content-length')) {
      if (seenContentLength) {
        pos = next;
        continue;
      }
      seenContentLength = true;
    }
    if (nameIs(head, pos, colon, 'transfer-encoding')) {
      o += TE_LINE.copy(out, o);
      pos = next;
      continue;
    }
    const nameStart = o;
    o += head.copy(out, o, pos, next);
    for (let k = nameStart; k < nameStart + (colon - pos); k++) if (out[k] === UNDERSCORE) out[k] = 0x2d;
    pos = next;
  }
  return out.subarray(0, o);
}

