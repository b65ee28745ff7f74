// GET /holders (spec §2.3, §4.2): for each market in the list, one group per outcome token (outcome 0
// then 1, in the order the markets were given; markets the engine does not know are left out), holders by
// amount descending (ties by address), at most `limit` per token, none below `minBalance` shares and
// none with nothing. The fee account is the exchange, not a holder, and is left out. No profiles exist:
// name, pseudonym, bio and images are '' and displayUsernamePublic is false.

import { ReadModelInputError } from './errors.js';
import { baseUnitsAtLeastZero, idList, intIn } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets } from './markets.js';
import { assetOf, toFloat } from './wire.js';

export const HOLDERS_DEFAULT_LIMIT = 20;
export const HOLDERS_MAX_LIMIT = 500;
/** Most markets in one request. */
export const HOLDERS_MAX_MARKETS = 100;

export interface HoldersParams {
  /** Condition ids (required, at least one). */
  readonly market: readonly string[];
  readonly limit?: number;
  /** Shares; default 1. */
  readonly minBalance?: number;
}

export interface Holder {
  proxyWallet: string;
  bio: string;
  asset: string;
  pseudonym: string;
  amount: number;
  displayUsernamePublic: boolean;
  outcomeIndex: number;
  name: string;
  profileImage: string;
  profileImageOptimized: string;
}

export interface HolderGroup {
  /** The token in the activity surface's asset form, `<condition_id>:<outcome_index>`. */
  token: string;
  holders: Holder[];
}

export async function holders(ctx: ReadContext, params: HoldersParams): Promise<HolderGroup[]> {
  const markets = idList('market', params.market, HOLDERS_MAX_MARKETS);
  if (markets === undefined || markets.length === 0) throw new ReadModelInputError('market', 'is required');
  const limit = intIn('limit', params.limit, HOLDERS_DEFAULT_LIMIT, 0, HOLDERS_MAX_LIMIT);
  const minBalance = baseUnitsAtLeastZero('minBalance', params.minBalance, 1_000_000);
  const info = await loadMarkets(ctx, markets);
  const rows = limit === 0 ? [] : await select<{ token_id: string; account: string; size: number }>(
    ctx,
    `SELECT token_id, account, size FROM ${ctx.db}.positions FINAL
      WHERE condition_id IN {markets:Array(String)} AND size > 0 AND size >= {minBalance:Int64} AND account != {fee:String}
      ORDER BY token_id, size DESC, account
      LIMIT {limit:UInt32} BY token_id`,
    { markets, minBalance, limit, fee: ctx.feeAccount },
  );
  const byToken = new Map<string, { account: string; size: number }[]>();
  for (const r of rows) {
    const list = byToken.get(r.token_id) ?? [];
    list.push(r);
    byToken.set(r.token_id, list);
  }
  const groups: HolderGroup[] = [];
  for (const conditionId of markets) {
    const m = info.get(conditionId);
    if (m === undefined || m.tokens[0] === '') continue;
    m.tokens.forEach((tokenId, outcome) => {
      const asset = assetOf(conditionId, outcome);
      groups.push({
        token: asset,
        holders: (byToken.get(tokenId) ?? []).map((h) => ({
          proxyWallet: h.account, bio: '', asset, pseudonym: '', amount: toFloat(Number(h.size)), displayUsernamePublic: false,
          outcomeIndex: outcome, name: '', profileImage: '', profileImageOptimized: '',
        })),
      });
    });
  }
  return groups;
}
