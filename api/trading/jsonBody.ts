// A route without a body schema parses its body itself, after authentication: a request that fails
// authentication is refused before its body is looked at. (Routes with a body schema have it checked by the
// server after their guard: apiTypes.ts.)

import { ApiError } from '../http/apiErrors.js';

/** The raw body as JSON, or the given error (the public CLOB's `Invalid order payload` by default). */
export function jsonBody(raw: string, error: () => ApiError = () => new ApiError('invalid_order_payload', { detail: 'the body is not valid JSON' })): unknown {
  if (raw === '') throw error();
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw error();
  }
}
