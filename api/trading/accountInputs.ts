// Checks of the account reads' query parameters. The routes' query schemas state the same rules (api/schemas/
// formats.ts) and the server checks them after authentication (the routes' guard), so nothing about a request
// is judged before its caller is; these are what the handlers read the values with. Identifiers are normalised the way
// the engine and the projections store them: addresses, condition ids, order ids and builder codes in lower
// case; token ids as decimal strings.

import { ApiError, badRequest } from '../http/apiErrors.js';
import { conditionIdOf, tokenIdOf } from '../clob/clobInputs.js';

const ORDER_ID = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** A query value as a string; absent and empty are undefined (clients send `x=` for "no filter"). */
export function given(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

/** An order id (0x + 64 hex), lower-cased; 400 `Invalid orderID` otherwise. */
export function orderIdOf(value: unknown): string {
  if (typeof value !== 'string' || !ORDER_ID.test(value)) throw new ApiError('invalid_order_id');
  return value.toLowerCase();
}

/** An address filter (0x + 40 hex). */
export function addressOf(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!ADDRESS.test(value)) throw badRequest(`${name}: must be an address (0x + 40 hex digits)`);
  return value.toLowerCase();
}

/** A condition id filter; 400 `Invalid market` when malformed. */
export function marketOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : conditionIdOf(value).toLowerCase();
}

/** A token id filter; 400 `Invalid token id` when malformed. */
export function assetOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : tokenIdOf(value);
}

/** A builder code (bytes32 hex); 400 `invalid builder trade params` when malformed. */
export function builderCodeOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!BYTES32.test(value)) throw new ApiError('invalid_builder_trade_params');
  return value.toLowerCase();
}
