// Calling catalog handlers the way the HTTP server will: path parameters and a query string.

import type { Handler, HandlerResponse } from '../../../api/catalog/handlerTypes.js';
import { catalogRoutes } from '../../../api/catalog/catalogRoutes.js';
import type { CatalogDb } from '../../../catalog/catalogDb.js';
import { importParsedDump } from '../../../catalog/sync/dumpImport.js';
import { buildDemoCatalog } from '../../../catalog/demo/buildDemoCatalog.js';
import type { GammaObject } from '../../../catalog/upstream/gammaValues.js';
import { freshCatalog } from './testCatalog.js';

export type Call = (path: string, query?: string, params?: Record<string, string>) => Promise<HandlerResponse>;

export function caller(catalog: CatalogDb): Call {
  const routes = new Map<string, Handler>(catalogRoutes(catalog).map((r) => [r.path, r.handler]));
  return async (path, query = '', params = {}) => {
    const handler = routes.get(path);
    if (handler === undefined) throw new Error(`no route ${path}`);
    return handler({ params, query: new URLSearchParams(query) });
  };
}

/** A fresh catalog holding the demo catalog, and a caller over it. */
export async function demoCatalog(): Promise<{ catalog: CatalogDb; call: Call }> {
  const catalog = await freshCatalog();
  await importParsedDump(catalog, buildDemoCatalog());
  return { catalog, call: caller(catalog) };
}

/** The body of a 200 answer as a list of objects (fails loudly otherwise). */
export async function listOf(response: Promise<HandlerResponse>): Promise<GammaObject[]> {
  const r = await response;
  if (r.status !== 200 || !Array.isArray(r.body)) throw new Error(`expected a 200 list, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as GammaObject[];
}

export const ids = (list: readonly GammaObject[]): string[] => list.map((o) => o.id as string);

/** "900001".."900005" style id ranges. */
export const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
