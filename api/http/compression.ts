// Response compression by Accept-Encoding (RFC 9110 §12.5.3): brotli when the client takes it, else gzip,
// else none; only bodies of at least --compress-min-bytes (1 KiB by default: the /book answers of a usual
// book stay below it and pay nothing but the header read).
//
// Both run at their fastest setting, on the request thread: on a 94 KB catalog page brotli quality 1 takes
// ~0.25 ms for 16.5 KB, gzip level 1 ~0.9 ms for 18.3 KB, where gzip's default level 6 takes ~1.5 ms for
// 16.2 KB (measured; bench:http reports the CPU per compressed request). Handing the work to libuv's pool
// measured slower on this two-core machine, whose other core runs the header edge.

import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type ContentCoding = 'br' | 'gzip';

const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };
const GZIP_OPTIONS = { level: 1 };

/**
 * The coding to answer with for this Accept-Encoding value: `br` if acceptable, else `gzip` (or `x-gzip`,
 * or `*`), else undefined for identity. A coding with `q=0` is refused; other weights are not ranked, since
 * brotli is the better choice whenever a client accepts both.
 */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  // A client sends the same value on every request: the last answer is kept.
  if (acceptEncoding === lastAccept) return lastCoding;
  lastCoding = parseAcceptEncoding(acceptEncoding);
  lastAccept = acceptEncoding;
  return lastCoding;
}

let lastAccept: string | undefined;
let lastCoding: ContentCoding | undefined;

function parseAcceptEncoding(acceptEncoding: string): ContentCoding | undefined {
  let gzip = false;
  let any = false;
  for (const item of acceptEncoding.split(',')) {
    const [rawName = '', ...params] = item.split(';');
    const name = rawName.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/i.test(p))) continue;
    if (name === 'br') return 'br';
    if (name === 'gzip' || name === 'x-gzip') gzip = true;
    else if (name === '*') any = true;
  }
  return gzip || any ? (gzip ? 'gzip' : 'br') : undefined;
}

export function compress(body: string, coding: ContentCoding): Buffer {
  return coding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body, GZIP_OPTIONS);
}
