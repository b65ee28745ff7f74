// The transport-independent shape of an HTTP route: what it accepts (JSON schemas for query and body), what
// it answers (the schema of its 200 body), which rate-limit windows it counts against, and its handler.
// httpServer.ts mounts routes on uWebSockets.js; schemas.ts compiles each schema once, for ajv validation,
// fast-json-stringify serialisation and the OpenAPI document alike.

import type { ApiErrorCode } from './apiErrors.js';

/** The three public surfaces (spec §4) plus the service's own endpoints (metrics, openapi, operator). */
export type Surface = 'catalog' | 'activity' | 'clob' | 'service';

export type Method = 'GET' | 'POST' | 'DELETE';

/** A request's method: a route's, or HEAD, which every GET route also answers (without the body). */
export type RequestMethod = Method | 'HEAD';

/** A JSON schema (draft 2020-12 subset that ajv, fast-json-stringify and OpenAPI 3.1 all read). */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * What a value that does not fit its schema is answered with, as a schema's `x-error` (or `x-error-<keyword>`
 * for one keyword): a catalogue code, or a code and the detail its message takes (`{detail}`). Without a
 * detail, the detail says which parameter is wrong and how (schemas.ts). A required value that is missing
 * answers its own schema's rule.
 */
export type ErrorRule = ApiErrorCode | { readonly code: ApiErrorCode; readonly detail?: string };

export interface ApiRequest<Q = Record<string, unknown>, B = unknown> {
  readonly method: RequestMethod;
  /** Path relative to the surface's mount point (what an L2 HMAC signs), without the query string. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  /** The query, validated and coerced by the route's query schema (raw strings when it has none). */
  readonly query: Q;
  /** The raw query string, for handlers that read repeated keys themselves. */
  readonly rawQuery: URLSearchParams;
  /** The body, parsed and validated by the route's body schema; undefined without one. */
  readonly body: B;
  /** The body's bytes exactly as received (an L2 HMAC covers them). */
  readonly rawBody: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly ip: string;
  /** Server wall-clock time of arrival (ms). */
  readonly receivedAt: number;
}

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** A 200 body already serialised as this route's schema would (a cached answer), text or UTF-8 bytes; sent as it is. */
  readonly encoded?: string | Buffer;
}

export type Handler<Q = Record<string, unknown>, B = unknown> = (req: ApiRequest<Q, B>) => Reply | Promise<Reply>;

export interface RouteDef<Q = Record<string, unknown>, B = unknown> {
  readonly method: Method;
  /** Path with `{name}` parameters, relative to the surface prefix. */
  readonly path: string;
  readonly surface: Surface;
  readonly summary: string;
  /**
   * Schema of the query as an object of named parameters. Array parameters take comma-separated values. An
   * empty value counts as absent and values are trimmed, unless the query is strict. Properties tied by
   * `dependentRequired` / `dependentSchemas` are documented as one form-exploded object parameter.
   */
  readonly query?: JsonSchema;
  /**
   * Activity endpoints refuse parameters their query schema does not name (spec §7 `unknown_field`), and take
   * every value as sent: an empty value is a value (upstream's Data API document), nothing is trimmed.
   */
  readonly strictQuery?: boolean;
  /** Schema of the path parameters as an object (each `{name}` of the path); without it, any string. */
  readonly params?: JsonSchema;
  readonly body?: JsonSchema;
  /** The body may be left out (empty): the handler then sees `body` undefined. */
  readonly bodyOptional?: boolean;
  /**
   * Authentication, run once the body has arrived and before the path parameters, query and body are checked
   * against their schemas: a request that fails it is refused (401) before anything else of it is judged.
   * It throws to refuse; the handler may authenticate again (authenticate.ts remembers the answer per request).
   */
  readonly guard?: (req: ApiRequest<unknown, unknown>) => void;
  /**
   * Completes what the guard left for later (POST /order's HMAC comparison, made beside the order's signature):
   * called before any refusal of a request that passed the guard, and throws the guard's refusal when the
   * request fails it, which is then the answer. A no-op once the handler has judged it.
   */
  readonly confirm?: (req: ApiRequest<unknown, unknown>) => void;
  /**
   * The answer shows the engine's state (a book, a price, a balance, a market's terms): the handler runs only
   * while the engine holds nothing that is not durable (CommandGateway.whenDurable), so that no answer shows
   * what a crash could take back; while a batch is being appended, it waits for that append. Such a route may
   * answer `unavailable` when the engine has stopped.
   */
  readonly engineState?: boolean;
  /** Schema of the 200 body; a string body with `{type: 'string'}` is sent as text/plain. */
  readonly response: JsonSchema;
  /** Rate-limit windows (rateLimits.ts) this route counts against, in addition to its surface's window. */
  readonly limits?: readonly string[];
  /** Error codes this route may answer with, for the OpenAPI document. */
  readonly errors?: readonly ApiErrorCode[];
  readonly handler: Handler<Q, B>;
}

/** Builds a reply with status 200. */
export function ok(body: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return headers === undefined ? { status: 200, body } : { status: 200, body, headers };
}
