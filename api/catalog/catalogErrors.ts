// The catalog surface's error bodies (spec §7): typed errors `{type, error}`. Status codes, which the spec
// leaves open, follow HTTP: 400 for a bad request, 404 for an id or slug that is not found (or not visible
// under `creator`).

import type { HandlerResponse } from './handlerTypes.js';

export const CATALOG_ERRORS = {
  badRequest: { status: 400, type: 'bad request' },
  idNotFound: { status: 404, type: 'not found error', error: 'id not found' },
  slugNotFound: { status: 404, type: 'not found error', error: 'slug not found' },
} as const;

/** Thrown by parameter parsing; handlers turn it into a 400. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

export function badRequest(error: string): HandlerResponse {
  return { status: 400, body: { type: CATALOG_ERRORS.badRequest.type, error } };
}

export function idNotFound(): HandlerResponse {
  return { status: 404, body: { type: CATALOG_ERRORS.idNotFound.type, error: CATALOG_ERRORS.idNotFound.error } };
}

export function slugNotFound(): HandlerResponse {
  return { status: 404, body: { type: CATALOG_ERRORS.slugNotFound.type, error: CATALOG_ERRORS.slugNotFound.error } };
}

export function ok(body: unknown): HandlerResponse {
  return { status: 200, body };
}

/** Runs a handler body, answering a BadRequest thrown by parameter parsing with a 400. */
export async function answering(run: () => Promise<HandlerResponse>): Promise<HandlerResponse> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BadRequest) return badRequest(error.message);
    throw error;
  }
}
