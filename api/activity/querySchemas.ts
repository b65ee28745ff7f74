// Schema pieces of the Data API reads' queries, as api/activity/activityRoutes.ts writes its own: closed sets
// in the upper-case spelling or all lower case, bounded integers with their default, addresses and condition
// ids in any letter case. ajv validates against them and the OpenAPI document shows them.

import type { ApiErrorCode } from '../http/apiErrors.js';
import type { JsonSchema, RouteDef } from '../http/apiTypes.js';

export const ADDRESS = '^0x[0-9a-fA-F]{40}$';
export const CONDITION_ID = '^0x[0-9a-fA-F]{64}$';

/** A closed set of values, accepted in the upper-case spelling or all lower case. */
export const choice = (values: readonly string[], description: string, fallback?: string): JsonSchema => ({
  type: 'string',
  enum: [...values, ...values.map((v) => v.toLowerCase())],
  ...(fallback === undefined ? {} : { default: fallback }),
  description,
});

export const integer = (min: number, max: number, fallback: number, description: string): JsonSchema => ({ type: 'integer', minimum: min, maximum: max, default: fallback, description });
export const unixSeconds = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, maximum: 1e11, description });
export const address = (description: string): JsonSchema => ({ type: 'string', pattern: ADDRESS, maxLength: 42, description });
export const conditionId = (description: string): JsonSchema => ({ type: 'string', pattern: CONDITION_ID, maxLength: 66, description });

export const conditionIds = (maxItems: number, description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'string', pattern: CONDITION_ID, maxLength: 66 },
  minItems: 1,
  maxItems,
  description: `${description} Comma-separated condition ids (0x + 64 hex digits), at most ${maxItems}.`,
});

/** A list of closed-set values, comma-separated, each in either spelling. */
export const choices = (values: readonly string[], description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'string', enum: [...values, ...values.map((v) => v.toLowerCase())] },
  minItems: 1,
  maxItems: 2 * values.length,
  description,
});

export const query = (properties: Record<string, JsonSchema>, required: readonly string[] = [], extra: Record<string, unknown> = {}): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required }),
  ...extra,
});

const ERRORS: readonly ApiErrorCode[] = ['bad_request', 'unknown_field', 'ip_not_allowlisted', 'rate_limited', 'internal_db'];

/** A GET route of the activity surface whose handler reads its own query type (validated against `query`). */
export function dataRoute<Q>(def: Omit<RouteDef<Q>, 'surface' | 'method' | 'strictQuery' | 'errors'>): RouteDef {
  return { method: 'GET', surface: 'activity', strictQuery: true, errors: ERRORS, ...def } as unknown as RouteDef;
}
