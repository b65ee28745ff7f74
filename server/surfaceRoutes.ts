// Every public route of the three surfaces, from the parts of the running service they read.

import type { Config } from '../config/index.js';
import type { CommandGateway } from '../host/commandGateway.js';
import type { CatalogDb } from '../catalog/catalogDb.js';
import type { MarketIndex } from '../catalog/marketIndex.js';
import type { ReadContext } from '../projections/readModel/index.js';
import type { LiveReadModel } from '../projections/live/liveReadModel.js';
import type { RouteDef } from '../api/http/apiTypes.js';
import { catalogApiRoutes } from '../api/catalog/catalogApiRoutes.js';
import { clobReadRoutes } from '../api/clob/clobReadRoutes.js';
import { activityRoutes } from '../api/activity/activityRoutes.js';
import { dataApiRoutes } from '../api/activity/dataApiRoutes.js';
import { LeaderboardBoards } from '../projections/readModel/leaderboardBoards.js';

export interface SurfaceDeps {
  readonly config: Config;
  readonly host: CommandGateway;
  readonly catalog: CatalogDb;
  readonly markets: MarketIndex;
  readonly reads: ReadContext;
  /** The in-memory read model, when on. */
  readonly live?: LiveReadModel;
  readonly clock: () => number;
  /** The projector's progress (book history waits for it). */
  readonly projection?: { readonly position: number; waitFor(pos: number, timeoutMs?: number): Promise<void> };
}

export function surfaceRoutes(deps: SurfaceDeps): RouteDef[] {
  const boards = new LeaderboardBoards(deps.reads, () => deps.projection?.position ?? 0, deps.config.leaderboardMaxAgeMs);
  // Warmed once the projector holds what was acknowledged before start-up (else at once without a projector).
  const warm = (): void => boards.warm();
  if (deps.projection === undefined) warm();
  else deps.projection.waitFor(deps.host.position, 120_000).then(warm, warm);
  return [
    ...catalogApiRoutes(deps.catalog),
    ...clobReadRoutes({ engine: deps.host.engine, markets: deps.markets, history: deps.reads, clock: deps.clock, projection: deps.projection, acknowledged: () => deps.host.position }),
    ...activityRoutes(deps.reads, deps.live, deps.markets),
    ...dataApiRoutes({
      reads: deps.reads, live: deps.live, catalog: deps.markets, balances: (account) => deps.host.engine.balances(account),
      boards: boards.board,
    }),
  ];
}
