// The order-book surface's service endpoints (upstream §3.5, §2.9): GET / and GET /ok answer the text
// "OK"; GET /time the server's Unix time in whole seconds (a JSON integer); GET /version {"version": 2}
// (the V2 order format: the official V2 client signs V2 orders when it reads 2).

import { ok, type RouteDef } from '../http/apiTypes.js';
import { int, obj } from '../schemas/common.js';

export const API_VERSION = 2;

export interface ServiceInfoDeps {
  readonly clock: () => number;
}

export function serviceInfoRoutes(deps: ServiceInfoDeps): RouteDef[] {
  const text = { type: 'string', description: 'The text OK.' };
  return [
    { method: 'GET', path: '/', surface: 'clob', summary: 'Health check: the text OK.', response: text, limits: ['clob:root'], handler: () => ok('OK') },
    { method: 'GET', path: '/ok', surface: 'clob', summary: 'Health check: the text OK.', response: text, handler: () => ok('OK') },
    { method: 'GET', path: '/time', surface: 'clob', summary: 'Server time, Unix seconds.', response: int('Unix seconds.'), handler: () => ok(Math.floor(deps.clock() / 1000)) },
    { method: 'GET', path: '/version', surface: 'clob', summary: 'API version of the order format (2).', response: obj({ version: int() }), handler: () => ok({ version: API_VERSION }) },
  ];
}
