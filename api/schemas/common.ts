// Schema pieces shared by several surfaces. Plain objects: ajv, fast-json-stringify and the OpenAPI
// generator read the same ones.

import type { JsonSchema } from '../http/apiTypes.js';

export const str = (description?: string): JsonSchema => (description === undefined ? { type: 'string' } : { type: 'string', description });
export const int = (description?: string): JsonSchema => (description === undefined ? { type: 'integer' } : { type: 'integer', description });
export const num = (description?: string): JsonSchema => (description === undefined ? { type: 'number' } : { type: 'number', description });
export const bool = (description?: string): JsonSchema => (description === undefined ? { type: 'boolean' } : { type: 'boolean', description });

/** An object schema whose listed properties are all required. */
export function obj(properties: Record<string, JsonSchema>, opts: { optional?: readonly string[]; additional?: boolean } = {}): JsonSchema {
  const optional = new Set(opts.optional ?? []);
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.has(k)),
    additionalProperties: opts.additional ?? false,
  };
}

export const arr = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/** Properties of these names, each a string without a description. */
export const texts = (...names: string[]): Record<string, JsonSchema> => Object.fromEntries(names.map((n) => [n, str()]));
/** Properties of these names, each a number without a description. */
export const nums = (...names: string[]): Record<string, JsonSchema> => Object.fromEntries(names.map((n) => [n, num()]));

/** A query parameter the handler parses itself (documented here, checked there). */
export const param = (description: string): JsonSchema => ({ type: 'string', maxLength: 2000, description });

/** A comma-separated list parameter. */
export const listParam = (description: string, maxItems = 500): JsonSchema => ({ type: 'array', items: { type: 'string', maxLength: 200 }, maxItems, description });

export const ERROR_BODY: JsonSchema = obj({ error: str() });
export const TYPED_ERROR_BODY: JsonSchema = obj({ type: str(), error: str() });
