// Every route of the liquidity rewards program (docs/rewards.md): order scoring, the public configuration,
// and a maker's earnings and shares, at upstream's paths on the CLOB surface (under /clob and at the root).

import type { RouteDef } from '../http/apiTypes.js';
import type { RewardsDeps } from './rewardsDeps.js';
import { scoringRoutes } from './scoringRoutes.js';
import { rewardMarketRoutes } from './rewardMarketRoutes.js';
import { rewardUserRoutes } from './rewardUserRoutes.js';

export function rewardsRoutes(deps: RewardsDeps): RouteDef[] {
  return [...scoringRoutes(deps.trading), ...rewardMarketRoutes(deps), ...rewardUserRoutes(deps)];
}
