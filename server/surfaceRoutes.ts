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

export interface SurfaceDeps {
  readonly config: Config;
  readonly host: CommandGateway;
  readonly catalog: CatalogDb;
  readonly markets: MarketIndex;
  readonly reads: ReadContext;
  /** The in-memory read model, when on. */
  readonly live?: LiveReadModel;
  readonly clock: () => number;
}

export function surfaceRoutes(deps: SurfaceDeps): RouteDef[] {
  return [
    ...catalogApiRoutes(deps.catalog),
    ...clobReadRoutes({ engine: deps.host.engine, markets: deps.markets, history: deps.reads, clock: deps.clock }),
    ...activityRoutes(deps.reads, deps.live),
  ];
}
