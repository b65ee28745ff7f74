// Builder codes: the bytes32 a V2 order signs in its `builder` field, by which GET /builder/trades finds the
// trades a builder brought. A builder's code here is its address, lower-case, left-padded with zeros to 32
// bytes (0x + 24 zeros + the 40 hex digits), the same for every builder key of that address: revoking and
// creating keys never changes which trades are the builder's.

import { ZERO_BYTES32 } from '../../auth/index.js';
import type { PlaceOrderSubmission } from './orderIntake.js';

/** The builder code of a builder key's owner (an address in any case). */
export function builderCodeOfAddress(address: string): string {
  return `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;
}

/**
 * The order attributed to `builder` (the address of verified builder headers) when the signed order names no
 * builder; an order that signed a builder code keeps it: the signature covers it, so it is the maker's word.
 */
export function attributed(command: PlaceOrderSubmission, builder: string | undefined): PlaceOrderSubmission {
  if (builder === undefined || (command.builder !== undefined && command.builder !== ZERO_BYTES32)) return command;
  return { ...command, builder: builderCodeOfAddress(builder) };
}
