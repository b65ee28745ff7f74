// Operator authentication: every operator request carries `Authorization: Bearer <token>`, the configured
// operator token. It is checked before anything else of the request is looked at, and compared in constant
// time: both sides are hashed to SHA-256 first, so neither the content nor the length of the token leaks
// through timing.

import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/apiErrors.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class OperatorToken {
  private readonly expected: Buffer;

  constructor(token: string) {
    if (token.length === 0) throw new Error('the operator token must not be empty');
    this.expected = digest(token);
  }

  /** True when the Authorization header value carries the operator token. */
  matches(authorization: string | undefined): boolean {
    const presented = BEARER.exec(authorization ?? '')?.[1];
    // A missing token is compared too (as the empty string), so every refusal costs the same.
    const ok = timingSafeEqual(digest(presented ?? ''), this.expected);
    return ok && presented !== undefined;
  }

  /** Throws the 401 of the operator API unless the request's headers (lower-case names) carry the token. */
  require(headers: Readonly<Record<string, string>>): void {
    if (!this.matches(headers.authorization)) throw new ApiError('operator_unauthorized', {}, { 'www-authenticate': 'Bearer realm="operator"' });
  }
}
