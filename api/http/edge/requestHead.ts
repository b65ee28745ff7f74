// One request head, complete with its CRLFCRLF: validated, its framing decided, and rewritten for uWS.
//
// Contract: the head forwarded is the client's head with (1) `_` replaced by `-` in every header name,
// (2) every client-sent x-pmx-client-ip, x-pmx-edge-conn and x-pmx-method removed, (3) a repeated identical Content-Length
// kept once, (4) Transfer-Encoding written as `transfer-encoding: chunked`, and (5) `x-pmx-client-ip: <ip>` and `x-pmx-edge-conn: <n>`
// added last. When (1)-(4) change nothing and the request is HTTP/1.1 with a method uWS knows, the head goes
// out as a view of the input followed by the per-connection IP line (no copy).
//
// Two kinds of request uWS 20.30 cannot take are translated rather than refused (measured: it closes the
// connection without an answer on both):
// - HTTP/1.0 (RFC 9112 §C.2.1, nginx's default upstream protocol, HAProxy's health checks): forwarded as
//   HTTP/1.1 with `host:` added when absent (empty: the request named no authority), its Connection fields
//   replaced by `connection: keep-alive` when one of them has the keep-alive token and `connection: close`
//   otherwise (uWS then closes after its answer), and any Upgrade field removed (RFC 9110 §7.8). A
//   Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 §6.1) and refused.
// - A method other than the nine uWS routes (QUERY, a typo, a lower-case `get`; any token): forwarded as
//   TRACE with `x-pmx-method: <method>`, so the server answers it in order (405 or 501) and the connection stays
//   usable (its body, if any, is framed and forwarded as any other).
//
// Refused (never forwarded): anything not framed unambiguously (RFC 9112 §6.3: CL with TE, differing
// CLs, a non-decimal CL, a transfer coding other than chunked, obs-fold, bare CR/LF, whitespace before
// the colon) and what uWS 20.30 would silently drop: a name byte outside [A-Za-z0-9_-], no or several
// Host fields in HTTP/1.1, a request-target not in origin form, a version other than HTTP/1.1 and 1.0, more
// than 48 fields once the edge's lines are added, an upgrade request with a body.

import type { EdgeErrorCode } from './edgeErrors.js';
import { COLON, CR, CRLF, HYPHEN, LF, NAME_BYTE, SP, TARGET_BYTE, TCHAR, UNDERSCORE, UWS_MAX_HEADER_FIELDS, VALUE_BYTE, nameIs, trimmedValue } from './httpSyntax.js';

export const CLIENT_IP_HEADER = 'x-pmx-client-ip';
/** The edge's number for the client's connection, on every request head it forwards (wsDirect.ts uses it). */
export const EDGE_CONN_HEADER = 'x-pmx-edge-conn';
/** The client's method, on a request the edge forwards as TRACE because uWS does not know the method. */
export const METHOD_HEADER = 'x-pmx-method';
/** The methods uWS 20.30 routes (measured); it closes the connection on any other without answering. */
export const UWS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);
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
      /** A HEAD request: its response has no body whatever its Content-Length says (RFC 9112 §6.3). */
      readonly head: boolean;
      /** Some header name had an underscore. */
      readonly underscores: boolean;
      /** POST, PUT, PATCH or DELETE: a request that may change state (edge/writeHold.ts holds these). */
      readonly write: boolean;
    }
  | { readonly kind: 'error'; readonly code: EdgeErrorCode };

const NONE: BodyFraming = { kind: 'none' };
const CHUNKED: BodyFraming = { kind: 'chunked' };
const TE_LINE = Buffer.from('transfer-encoding: chunked\r\n', 'latin1');

const fail = (code: EdgeErrorCode): ParsedRequestHead => ({ kind: 'error', code });

/** Where the names of the head being parsed have an underscore (reused from head to head: one edge thread parses one head at a time). */
const underscoresAt: number[] = [];

/** The IP line, the connection's line and the empty line that end the head. */
export function clientIpTail(ip: string, conn = 0): Buffer {
  return Buffer.from(`${CLIENT_IP_HEADER}: ${ip}\r\n${EDGE_CONN_HEADER}: ${conn}\r\n\r\n`, 'latin1');
}

/** `head` ends with CRLFCRLF and does not start with CR or LF. */
export function parseRequestHead(head: Buffer, ipTail: Buffer): ParsedRequestHead {
  const lineEnd = head.indexOf(CRLF);
  const line = checkRequestLine(head, lineEnd);
  if (typeof line === 'string') return fail(line);
  const http10 = line === HTTP_1_0;

  const last = head.length - 2;
  let fields = 0;
  let dropped = 0;
  let hosts = 0;
  let rewrite = false;
  let upgrade = false;
  let keepAlive = false;
  let contentLength = -1;
  let chunked = false;
  underscoresAt.length = 0;
  for (let pos = lineEnd + 2; pos < last; ) {
    // One pass over the line's bytes finds its end: neither CR nor LF is a name or value byte, and the head
    // ends with CRLFCRLF, so both scans stop within it.
    let i = pos;
    while (NAME_BYTE[head[i] as number] === 1) {
      if (head[i] === UNDERSCORE) underscoresAt.push(i);
      i++;
    }
    // Also refuses obs-fold (a leading SP/HT), an empty name and whitespace before the colon.
    if (i === pos || head[i] !== COLON) return fail('malformed_request');
    let end = i + 1;
    while (VALUE_BYTE[head[end] as number] === 1) end++;
    // The first byte that is not a value byte must start the line's CRLF (a bare CR or LF, a NUL, … is refused).
    if (head[end] !== CR || head[end + 1] !== LF) return fail('malformed_request');
    fields++;
    switch (i - pos) {
      case 4:
        if (nameIs(head, pos, i, 'host')) hosts++;
        break;
      case 7:
        if (nameIs(head, pos, i, 'upgrade')) {
          if (http10) dropped++;
          else upgrade = true;
        }
        break;
      case 10:
        if (http10 && nameIs(head, pos, i, 'connection')) {
          dropped++;
          if (/(^|,)[ \t]*keep-alive[ \t]*(,|$)/i.test(head.toString('latin1', i + 1, end))) keepAlive = true;
        }
        break;
      case 12:
        if (nameIs(head, pos, i, METHOD_HEADER)) {
          dropped++;
          rewrite = true;
        }
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
        if (nameIs(head, pos, i, CLIENT_IP_HEADER) || nameIs(head, pos, i, EDGE_CONN_HEADER)) {
          dropped++;
          rewrite = true;
        }
        break;
      case 17:
        if (nameIs(head, pos, i, 'transfer-encoding')) {
          const value = trimmedValue(head, i + 1, end);
          if (http10 || chunked || value.toLowerCase() !== 'chunked') return fail('malformed_request');
          chunked = true;
          if (value !== 'chunked') rewrite = true;
        }
        break;
    }
    pos = end + 2;
  }
  if (hosts > 1 || (hosts === 0 && !http10) || (chunked && contentLength >= 0)) return fail('malformed_request');
  const methodEnd = head.indexOf(SP);
  const common = commonMethod(head, methodEnd);
  const method = common ?? head.toString('latin1', 0, methodEnd);
  const known = common !== undefined || UWS_METHODS.has(method);
  let added = '';
  if (!known) added += `${METHOD_HEADER}: ${method}\r\n`;
  if (http10) added += `${hosts === 0 ? 'host: \r\n' : ''}connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n`;
  const addedFields = (known ? 0 : 1) + (http10 ? (hosts === 0 ? 2 : 1) : 0);
  if (fields - dropped + addedFields + 1 > UWS_MAX_HEADER_FIELDS) return fail('header_too_large');
  const body: BodyFraming = chunked ? CHUNKED : contentLength > 0 ? { kind: 'length', length: contentLength } : NONE;
  if (upgrade && body !== NONE) return fail('malformed_request');
  let forwarded: Buffer;
  if (!known || http10) {
    const requestLine = `${known ? method : 'TRACE'}${head.toString('latin1', methodEnd, lineEnd - 9)} HTTP/1.1\r\n`;
    forwarded = rewriteHead(head, lineEnd, requestLine, http10, added);
  } else if (rewrite || (chunked && underscoresAt.length > 0)) {
    forwarded = rewriteHead(head, lineEnd, undefined, false, '');
  } else if (underscoresAt.length > 0) {
    // Only names change, byte for byte: the head copied once, each underscore of a name made a hyphen
    // (what rewriteHead gives for such a head, without walking its lines again).
    forwarded = Buffer.allocUnsafe(last);
    head.copy(forwarded, 0, 0, last);
    for (let k = 0; k < underscoresAt.length; k++) forwarded[underscoresAt[k] as number] = HYPHEN;
  } else {
    forwarded = head.subarray(0, last);
  }
  const write = method === 'POST' || method === 'DELETE' || method === 'PUT' || method === 'PATCH';
  return { kind: 'request', pieces: [forwarded, ipTail], body, upgrade, head: method === 'HEAD', underscores: underscoresAt.length > 0, write };
}

/** GET, POST, DELETE or HEAD, read without making a string (the methods of nearly every request), else undefined. */
function commonMethod(head: Buffer, end: number): string | undefined {
  const c = head[0];
  if (end === 3 && c === 0x47 && head[1] === 0x45 && head[2] === 0x54) return 'GET';
  if (end === 4 && c === 0x50 && head[1] === 0x4f && head[2] === 0x53 && head[3] === 0x54) return 'POST';
  if (end === 4 && c === 0x48 && head[1] === 0x45 && head[2] === 0x41 && head[3] === 0x44) return 'HEAD';
  if (end === 6 && c === 0x44 && head.toString('latin1', 0, 6) === 'DELETE') return 'DELETE';
  return undefined;
}

const HTTP_1_1 = 1;
const HTTP_1_0 = 0;

/** `method SP origin-form SP HTTP/1.x`: the minor version, or why the line is refused. */
function checkRequestLine(head: Buffer, end: number): EdgeErrorCode | typeof HTTP_1_0 | typeof HTTP_1_1 {
  let i = 0;
  while (i < end && TCHAR[head[i] as number] === 1) i++;
  if (i === 0 || head[i] !== SP || head[i + 1] !== 0x2f) return 'malformed_request';
  for (i += 2; i < end && TARGET_BYTE[head[i] as number] === 1; ) i++;
  if (head[i] !== SP) return 'malformed_request';
  const version = head.toString('latin1', i + 1, end);
  if (version === 'HTTP/1.1') return HTTP_1_1;
  if (version === 'HTTP/1.0') return HTTP_1_0;
  return /^HTTP\/[0-9]\.[0-9]$/.test(version) ? 'version_not_supported' : 'malformed_request';
}

/**
 * The slow path, on an already validated head: everything but the final empty line, rewritten, with
 * `requestLine` (CRLF included) instead of the client's when given, the client's Connection and Upgrade
 * fields dropped when `http10`, and the `added` lines last.
 */
function rewriteHead(head: Buffer, lineEnd: number, requestLine: string | undefined, http10: boolean, added: string): Buffer {
  const out = Buffer.allocUnsafe(head.length + TE_LINE.length + (requestLine?.length ?? 0) + added.length);
  let o = requestLine === undefined ? head.copy(out, 0, 0, lineEnd + 2) : out.write(requestLine, 0, 'latin1');
  let seenContentLength = false;
  for (let pos = lineEnd + 2; pos < head.length - 2; ) {
    const end = head.indexOf(CRLF, pos);
    const colon = head.indexOf(COLON, pos);
    const next = end + 2;
    if (nameIs(head, pos, colon, CLIENT_IP_HEADER) || nameIs(head, pos, colon, EDGE_CONN_HEADER) || nameIs(head, pos, colon, METHOD_HEADER) || (http10 && (nameIs(head, pos, colon, 'connection') || nameIs(head, pos, colon, 'upgrade')))) {
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
  o += out.write(added, o, 'latin1');
  return out.subarray(0, o);
}
