// Signer authorisations for signature types 1 and 2 (see signerTable.ts): the operator authorises a signer
// to trade for a maker, or revokes it. Refusals:
//   AuthorizeSigner: SIGNER_ALREADY_AUTHORIZED when the pair is already registered.
//   RevokeSigner:    SIGNER_NOT_AUTHORIZED when the pair is not registered.
// Every accepted command changes the table, so each SignerAuthorized / SignerRevoked event is a real change.
// Malformed fields (addresses not lower-case `0x` + 40 hex, or a maker naming itself) are INVALID_COMMAND.

import type { AuthorizeSigner, RevokeSigner } from './commands.js';
import { isAddress } from './commandChecks.js';
import type { EngineState } from './state.js';

/** The problem with a command's pair, or undefined when both addresses are well formed and distinct. */
function pairProblem(cmd: AuthorizeSigner | RevokeSigner): string | undefined {
  if (!isAddress(cmd.maker)) return 'maker must be lower-case 0x + 40 hex';
  if (!isAddress(cmd.signer)) return 'signer must be lower-case 0x + 40 hex';
  if (cmd.maker === cmd.signer) return 'signer must differ from maker (a maker signs its own orders without authorisation)';
  return undefined;
}

export function authorizeSigner(state: EngineState, cmd: AuthorizeSigner): void {
  const where = { account: typeof cmd.maker === 'string' ? cmd.maker : '' };
  const problem = pairProblem(cmd);
  if (problem !== undefined) return state.reject('AuthorizeSigner', 'INVALID_COMMAND', where, { detail: problem });
  if (state.signers.has(cmd.maker, cmd.signer)) return state.reject('AuthorizeSigner', 'SIGNER_ALREADY_AUTHORIZED', where, { maker: cmd.maker, signer: cmd.signer });
  state.signers.add(cmd.maker, cmd.signer);
  state.emit({ type: 'SignerAuthorized', maker: cmd.maker, signer: cmd.signer });
}

export function revokeSigner(state: EngineState, cmd: RevokeSigner): void {
  const where = { account: typeof cmd.maker === 'string' ? cmd.maker : '' };
  const problem = pairProblem(cmd);
  if (problem !== undefined) return state.reject('RevokeSigner', 'INVALID_COMMAND', where, { detail: problem });
  if (!state.signers.has(cmd.maker, cmd.signer)) return state.reject('RevokeSigner', 'SIGNER_NOT_AUTHORIZED', where, { maker: cmd.maker, signer: cmd.signer });
  state.signers.remove(cmd.maker, cmd.signer);
  state.emit({ type: 'SignerRevoked', maker: cmd.maker, signer: cmd.signer });
}
