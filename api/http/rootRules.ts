// How a request to a path that two surfaces define is routed when it arrives at the root, without a
// surface prefix. Under /catalog and /clob each surface has its own paths and nothing is ambiguous.
//
// | root path          | goes to the order-book surface when                  | otherwise |
// |--------------------|------------------------------------------------------|-----------|
// | GET /markets       | the query has `next_cursor` (the CLOB cursor form)   | catalog   |
// | GET /markets/{id}  | the id is a condition id (0x + 64 hex digits)        | catalog (numeric id) |
//
// The catalog also looks markets up by condition id: clients that want its form for a condition id use
// /catalog/markets/{id}.

import type { Method, Surface } from './apiTypes.js';

export interface RootRule {
  readonly method: Method;
  readonly path: string;
  readonly rule: string;
  readonly choose: (req: { readonly params: Readonly<Record<string, string>>; readonly query: URLSearchParams }) => Surface;
}

export const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

export const ROOT_RULES: readonly RootRule[] = [
  {
    method: 'GET',
    path: '/markets',
    rule: '`next_cursor` present → order book; absent → catalog',
    choose: ({ query }) => (query.has('next_cursor') ? 'clob' : 'catalog'),
  },
  {
    method: 'GET',
    path: '/markets/{id}',
    rule: 'a condition id (0x + 64 hex) → order book; anything else → catalog',
    choose: ({ params }) => (CONDITION_ID.test(params.id ?? '') ? 'clob' : 'catalog'),
  },
];
