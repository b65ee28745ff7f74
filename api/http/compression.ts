// Response compression by Accept-Encoding (RFC 9110 §12.5.3): brotli when the client takes it, else gzip,
// else none; only bodies of at least --compress-min-bytes (16 KiB by default).
//
// Both run at their fastest setting, on the request thread. Measured (CPU time): every compression costs
// ~40-60 µs whatever the size up to ~20 KB (the coder's setup dominates), more than a whole GET /book answer
// (~33 µs of the request thread); so a /book of 80 levels a side (5.8 KB) goes as it is, and bench:http shows
// a client asking for br or gzip costs /book nothing. On the 94 KB catalog page brotli quality 1 takes
// ~0.25 ms for 16.5 KB and gzip level 1 ~0.65-0.9 ms for 18.3 KB, where gzip's default level 6 takes
// ~1.5 ms for 16.2 KB; the page's own query costs several ms. Handing the work to libuv's pool measured
// slower on this two-core machine, whose other core runs the header edge.

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

export function compress(body: string | Buffer, coding: ContentCoding): Buffer {
  return coding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body, GZIP_OPTIONS);
}
