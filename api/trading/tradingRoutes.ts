// Every trading route of the CLOB surface (authentication, orders, cancels, account reads), mounted under
// /clob and at the root like the order-book reads.

import type { RouteDef } from '../http/apiTypes.js';
import type { TradingDeps } from './tradingDeps.js';
import { apiKeyRoutes } from './apiKeyRoutes.js';
import { accessKeyRoutes } from './accessKeyRoutes.js';
import { orderRoutes } from './orderRoutes.js';
import { cancelRoutes } from './cancelRoutes.js';
import { accountRoutes } from './accountRoutes.js';
import { balanceRoutes } from './balanceRoutes.js';
import { fullSetRoutes } from './fullSetRoutes.js';
import { convertRoutes } from './convertRoutes.js';
import { heartbeatRoutes } from './heartbeatRoutes.js';
import { notificationRoutes } from './notificationRoutes.js';
import { marketActivityRoutes } from './marketActivityRoutes.js';

export function tradingRoutes(deps: TradingDeps): RouteDef[] {
  return [...apiKeyRoutes(deps), ...accessKeyRoutes(deps), ...orderRoutes(deps), ...cancelRoutes(deps), ...accountRoutes(deps), ...balanceRoutes(deps), ...fullSetRoutes(deps), ...convertRoutes(deps), ...heartbeatRoutes(deps), ...notificationRoutes(deps), ...marketActivityRoutes(deps)];
}
