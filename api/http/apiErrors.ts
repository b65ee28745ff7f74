// The one catalogue of HTTP-level errors: every error the server answers with, its status code and its
// message, and how each surface shapes the body (spec §7). The README's HTTP error table is rendered from
// this object by docs/errorTable.ts and test/readme.test.ts keeps them equal. Trading rejections carry the
// engine's own catalogue (engine/rejectReasons.ts) with their status codes. The header edge in front of the
// server answers a few requests itself before any route sees them (400, 413, 431, 502, 505); those are
// declared once in edge/edgeErrors.ts, re-exported here, and rendered in the same table.

import type { Surface } from './apiTypes.js';

export { EDGE_ERRORS, type EdgeErrorCode } from './edge/edgeErrors.js';

export interface ApiErrorSpec {
  readonly status: number;
  /** The message; `{name}` is filled in from the error's values. */
  readonly message: string;
  /** When the catalog surface answers it: the typed body's `type` (spec §7). */
  readonly catalogType?: string;
  readonly when: string;
}

export const API_ERRORS = {
  bad_request: { status: 400, message: '{detail}', catalogType: 'bad request', when: 'A parameter or body is malformed, out of range or missing.' },
  unknown_field: { status: 400, message: 'unknown_field: {name}', when: 'An activity endpoint got a query parameter it does not define.' },
  invalid_token_id: { status: 400, message: 'Invalid token id', when: 'token_id is missing or not a decimal token id.' },
  invalid_side: { status: 400, message: 'Invalid side', when: 'side is not BUY or SELL.' },
  invalid_market: { status: 400, message: 'Invalid market', when: 'A condition id is not 0x followed by 64 hex digits.' },
  invalid_payload: { status: 400, message: 'Invalid payload', when: 'A POST body is not JSON of the documented shape.' },
  payload_too_many: { status: 400, message: 'Payload exceeds the limit', when: 'A batch body has more items than the endpoint allows.' },
  invalid_order_payload: { status: 400, message: 'Invalid order payload: {detail}', when: 'A POST /order(s) body or its signed order is malformed, or the signature does not verify; the detail names the problem.' },
  order_owner_mismatch: { status: 400, message: 'the order owner has to be the owner of the API KEY', when: "The body's owner is not the caller's API key." },
  order_signer_mismatch: { status: 400, message: 'the order signer address has to be the address of the API KEY', when: "The signed order's signer is not the address of the caller's API key." },
  maker_not_authorized: { status: 400, message: 'the order maker {maker} has not authorised signer {signer}', when: 'A signature type 1 or 2 order whose maker has no operator-registered authorisation for its signer.' },
  order_timestamp: { status: 400, message: 'order {id} is invalid. Timestamp {detail}', when: "The signed order's timestamp is further than the order timestamp window from the server clock." },
  market_mismatch: { status: 400, message: 'order {id} is invalid. conditionId {conditionId} is not the market of token {tokenId}', when: "The order's optional conditionId is not its token's market." },
  too_many_orders: { status: 400, message: 'Too many orders in payload: {count}, max allowed: {max}', when: 'POST /orders got more orders than allowed, or DELETE /orders more ids.' },
  invalid_order_id: { status: 400, message: 'Invalid orderID', when: 'An order id is not 0x followed by 64 hex digits.' },
  invalid_builder_trade_params: { status: 400, message: 'invalid builder trade params', when: 'GET /builder/trades got a builder_code that is not bytes32 hex (0x + 64 hex digits).' },
  api_key_create_failed: { status: 400, message: 'Could not create api key', when: 'POST /auth/api-key for an (address, nonce) that already has a key, or whose key was deleted; clients then derive.' },
  api_key_derive_failed: { status: 400, message: 'Could not derive api key!', when: 'GET /auth/derive-api-key for an (address, nonce) whose key was deleted.' },
  engine_rejected: { status: 400, message: '{detail}', when: "The engine refused the command; the message is the engine's (docs/errors.md, engine reject catalogue)." },
  unauthorized: { status: 401, message: '{detail}', when: 'Authentication headers are missing, stale, or do not verify.' },
  readonly_key_refused: { status: 401, message: 'Unauthorized/Invalid api key: a read-only API key (POLY_READONLY_API_KEY) can only read; this request needs L2 headers', when: 'A write (an order, a cancel, split, merge, redeem, a heartbeat, key management) presented with a read-only API key instead of L2 headers; nothing is changed.' },
  operator_unauthorized: { status: 401, message: 'unauthorized: the operator API needs Authorization: Bearer <operator token>', when: 'An /operator/* request without the configured operator token (missing, another scheme, or wrong); nothing else of it is read.' },
  ip_not_allowlisted: { status: 403, message: 'unauthorized: ip_not_allowlisted', when: "The caller's IP is outside the activity surface's allowlist." },
  not_found: { status: 404, message: 'not found', when: 'No route has this method and path.' },
  id_not_found: { status: 404, message: 'id not found', catalogType: 'not found error', when: 'A catalog market or event id does not exist.' },
  slug_not_found: { status: 404, message: 'slug not found', catalogType: 'not found error', when: 'A catalog market or event slug does not exist.' },
  market_not_found: { status: 404, message: 'market not found', when: 'An order-book market id does not exist.' },
  neg_risk_event_not_found: { status: 404, message: 'neg risk market not found', when: 'No market of the engine is a question of this neg-risk market id (operator API).' },
  no_orderbook: { status: 404, message: 'No orderbook exists for the requested token id', when: 'The token id belongs to no listed market.' },
  order_not_found: { status: 404, message: 'Order not found', when: 'No order has this id (for this account).' },
  heartbeat_invalid: { status: 400, message: 'Invalid Heartbeat ID', when: 'POST /v1/heartbeats named a heartbeat_id that is not the session\'s current one (or the caller has no session); the body also carries `heartbeat_id`, the id to send next ("" when no session is live), and `error_msg`. Nothing changes.' },
  engine_rejected_not_found: { status: 404, message: '{detail}', when: 'The engine refused the command because what it names does not exist (market, order, API key, signer authorisation).' },
  method_not_allowed: { status: 405, message: 'method not allowed', when: 'The path exists, but not with this method; the Allow header lists its methods.' },
  body_too_large: { status: 413, message: 'request body exceeds {limit} bytes', when: 'A request body is larger than the 1 MiB cap.' },
  rate_limited: { status: 429, message: 'Too Many Requests', when: 'A rate-limit window of the route is full; Retry-After says when to retry.' },
  ws_connections_per_ip: { status: 429, message: 'too many WebSocket connections from this address (at most {limit})', when: 'A WebSocket upgrade beyond --ws-max-connections-per-ip open connections from one client IP (docs/websocket.md).' },
  internal_db: { status: 500, message: 'internal_error: unexpected database failure', when: 'ClickHouse failed while answering an activity or history read.' },
  internal: { status: 500, message: 'internal error', when: 'An unexpected failure; it is logged with the request id.' },
  not_implemented: { status: 501, message: 'method {method} is not implemented', when: 'A method this server does not know (a typo, an extension) on a path no route has; on a known path it is 405. The connection stays usable.' },
  unavailable: { status: 503, message: '{detail}', when: 'The engine is stopped, starting or shutting down; retry later.' },
} as const satisfies Record<string, ApiErrorSpec>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** Thrown by handlers and the server for any answer that is not a success. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    readonly values: Readonly<Record<string, string | number>> = {},
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(fill(API_ERRORS[code].message, values));
    this.status = API_ERRORS[code].status;
  }
}

function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A 400 with a free-form message (the parameter and what is wrong with it). */
export function badRequest(detail: string): ApiError {
  return new ApiError('bad_request', { detail });
}

/** The error body as the surface shapes it: catalog errors are typed `{type, error}`, others `{error}`. */
export function errorBody(surface: Surface, error: ApiError): { type?: string; error: string } {
  const spec: ApiErrorSpec = API_ERRORS[error.code];
  if (surface === 'catalog' && spec.catalogType !== undefined) return { type: spec.catalogType, error: error.message };
  return { error: error.message };
}
