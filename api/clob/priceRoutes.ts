// Prices from the engine's live books (spec §4.3, upstream §3.3), in each token's own terms:
//
// | endpoint                         | answers                                                          |
// |----------------------------------|------------------------------------------------------------------|
// | GET /price?token_id&side         | {price}: BUY → best bid, SELL → best ask (the resting side)       |
// | GET /prices?token_ids&sides      | {token: {BUY?, SELL?}}; sides pair with token_ids by position; a  |
// | POST /prices [{token_id, side?}] |   token without one gets both (extra sides are ignored)           |
// | GET /midpoint?token_id           | {mid} = (best bid + best ask) / 2                                 |
// | GET|POST /midpoints              | {token: mid}                                                      |
// | GET /spread?token_id             | {spread} = best ask − best bid                                    |
// | POST /spreads                    | {token: spread}                                                   |
// | GET /last-trade-price?token_id   | {price, side}: the last fill, taker's side in this token's terms  |
// | POST /last-trades-prices         | [{token_id, price, side}]                                         |
// | GET /tick-size, /neg-risk,       | {minimum_tick_size: number}, {neg_risk}, {base_fee: taker fee bps} |
// |   /fee-rate                      |                                                                  |
// | GET /fees/builder-fees/{code}    | {builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0}    |
//
// A value that does not exist (an empty side, no trade yet) is '' in a single answer (the CLOB's form
// for absent decimals, upstream §0) and is left out of batch answers (clients read them as partial maps;
// a last trade without a side would not parse). A token no listed market has: 404 `No orderbook exists
// for the requested token id` on single reads, left out of batch reads. `base_fee` is the taker fee: the
// fee a marketable order pays (maker_base_fee / taker_base_fee are both in the market lists).

import { formatUnits, PRICE_ONE, type Outcome } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, bool, int, num, obj, str } from '../schemas/common.js';
import { answering, BYTES32_PATTERN, list } from '../schemas/formats.js';
import { decimalOrEmpty, lastTradeOf, midpointOf, priceFor, quoteOf, spreadOf, type EngineReads, type TokenQuote } from './bookView.js';
import { BATCH_BODY, batchTokenIds, checkBatchSize, MAX_BATCH_ITEMS, side, sideOf, TOKEN_QUERY, tokenId, tokenIdList, tokenIdOf, type BatchItem, type BookSideName } from './clobInputs.js';

export interface PriceDeps {
  readonly engine: EngineReads;
}

const TOKEN_ERRORS = ['invalid_token_id', 'no_orderbook'] as const;
const BUILDER_CODE = new RegExp(BYTES32_PATTERN);
const BUILDER_CODE_PARAMS = {
  type: 'object',
  properties: { builder_code: answering({ type: 'string', pattern: BYTES32_PATTERN, maxLength: 66, description: 'Builder code: bytes32 hex (0x + 64 hex digits).' }, { code: 'bad_request', detail: 'builder_code: must be bytes32 hex (0x + 64 hex digits)' }) },
  required: ['builder_code'],
} as const;
const BATCH_ERRORS = ['invalid_payload', 'payload_too_many', 'invalid_token_id'] as const;
const byToken = (value: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: value, description: 'Keyed by token id.' });
const SIDES = obj({ BUY: str(), SELL: str() }, { optional: ['BUY', 'SELL'] });

function tokenOrThrow(engine: EngineReads, tokenIdValue: unknown): { market: Market; outcome: Outcome } {
  const ref = engine.marketOfToken(tokenIdOf(tokenIdValue));
  if (ref === undefined) throw new ApiError('no_orderbook');
  return ref;
}

function quoteOrThrow(engine: EngineReads, tokenIdValue: unknown): TokenQuote {
  const quote = quoteOf(engine, tokenIdOf(tokenIdValue));
  if (quote === undefined) throw new ApiError('no_orderbook');
  return quote;
}

/** (token, side) pairs; side undefined means both. */
type PriceAsk = readonly [string, BookSideName | undefined];

function pricesAnswer(engine: EngineReads, asks: readonly PriceAsk[]): Record<string, Partial<Record<BookSideName, string>>> {
  const out: Record<string, Partial<Record<BookSideName, string>>> = {};
  for (const [tokenId, side] of asks) {
    const quote = quoteOf(engine, tokenId);
    if (quote === undefined) continue;
    const entry = (out[tokenId] ??= {});
    for (const s of side === undefined ? (['BUY', 'SELL'] as const) : [side]) {
      const price = priceFor(quote, s);
      if (price !== undefined) entry[s] = formatUnits(price);
    }
  }
  return out;
}

function perToken(engine: EngineReads, tokenIds: readonly string[], value: (quote: TokenQuote) => number | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tokenId of tokenIds) {
    const quote = quoteOf(engine, tokenId);
    const v = quote === undefined ? undefined : value(quote);
    if (v !== undefined) out[tokenId] = formatUnits(v);
  }
  return out;
}

/** token_ids of a GET batch, checked, without repeats. */
function queryTokenIds(req: ApiRequest): string[] {
  const ids = req.query.token_ids as string[] | undefined;
  if (ids === undefined || ids.length === 0) throw new ApiError('invalid_token_id');
  checkBatchSize(ids.length);
  return ids.map(tokenIdOf);
}

export function priceRoutes(deps: PriceDeps): RouteDef[] {
  const { engine } = deps;
  return [
    {
      method: 'GET', path: '/price', surface: 'clob', engineState: true, summary: 'Best price on one side: BUY → best bid, SELL → best ask.',
      query: { type: 'object', properties: { token_id: tokenId(), side: side('BUY → the best bid, SELL → the best ask; any letter case.') }, required: ['token_id', 'side'] },
      response: obj({ price: str('"" when the side is empty.') }),
      limits: ['clob:price'], errors: ['invalid_token_id', 'invalid_side', 'no_orderbook'],
      handler: (req) => {
        const tokenId = tokenIdOf(req.query.token_id);
        const side = sideOf(req.query.side);
        const quote = quoteOrThrow(engine, tokenId);
        return ok({ price: decimalOrEmpty(priceFor(quote, side)) });
      },
    },
    {
      method: 'GET', path: '/prices', surface: 'clob', engineState: true, summary: 'Best prices of several tokens (sides pair with token_ids by position; a token without one gets both).',
      query: {
        type: 'object',
        properties: {
          token_ids: tokenIdList('Token ids.'),
          sides: list(side(), MAX_BATCH_ITEMS, `BUY or SELL for the token id at the same position; a token id without one (or past the end of the list) gets both; sides past the last token id are ignored. At most ${MAX_BATCH_ITEMS}.`, { minItems: 1 }),
        },
        required: ['token_ids'],
      },
      response: byToken(SIDES),
      limits: ['clob:prices'], errors: ['invalid_token_id', 'invalid_side', 'payload_too_many', 'bad_request'],
      handler: (req) => {
        const tokenIds = queryTokenIds(req);
        const sides = (req.query.sides as string[] | undefined) ?? [];
        return ok(pricesAnswer(engine, tokenIds.map((t, i) => [t, sides[i] === undefined ? undefined : sideOf(sides[i])] as const)));
      },
    },
    {
      method: 'POST', path: '/prices', surface: 'clob', engineState: true, summary: 'Best prices of several tokens: [{token_id, side}] (no side = both).',
      body: BATCH_BODY, response: byToken(SIDES),
      limits: ['clob:prices'], errors: [...BATCH_ERRORS, 'invalid_side'],
      handler: (req) => {
        const items = req.body as BatchItem[];
        checkBatchSize(items.length);
        return ok(pricesAnswer(engine, items.map((item) => [tokenIdOf(item.token_id), item.side === undefined ? undefined : sideOf(item.side)] as const)));
      },
    },
    {
      method: 'GET', path: '/midpoint', surface: 'clob', engineState: true, summary: 'Midpoint of the best bid and ask.',
      query: TOKEN_QUERY, response: obj({ mid: str('"" unless both sides have orders.') }),
      limits: ['clob:midpoint'], errors: [...TOKEN_ERRORS],
      handler: (req) => ok({ mid: decimalOrEmpty(midpointOf(quoteOrThrow(engine, req.query.token_id))) }),
    },
    {
      method: 'GET', path: '/midpoints', surface: 'clob', engineState: true, summary: 'Midpoints of several tokens (tokens without one are left out).',
      query: { type: 'object', properties: { token_ids: tokenIdList('Token ids.') }, required: ['token_ids'] },
      response: byToken(str()), errors: ['invalid_token_id', 'payload_too_many'],
      handler: (req) => ok(perToken(engine, queryTokenIds(req), midpointOf)),
    },
    {
      method: 'POST', path: '/midpoints', surface: 'clob', engineState: true, summary: 'Midpoints of several tokens: [{token_id}].',
      body: BATCH_BODY, response: byToken(str()), errors: [...BATCH_ERRORS],
      handler: (req) => ok(perToken(engine, batchTokenIds(req.body as BatchItem[]), midpointOf)),
    },
    {
      method: 'GET', path: '/spread', surface: 'clob', engineState: true, summary: 'Best ask minus best bid.',
      query: TOKEN_QUERY, response: obj({ spread: str('"" unless both sides have orders.') }), errors: [...TOKEN_ERRORS],
      handler: (req) => ok({ spread: decimalOrEmpty(spreadOf(quoteOrThrow(engine, req.query.token_id))) }),
    },
    {
      method: 'POST', path: '/spreads', surface: 'clob', engineState: true, summary: 'Spreads of several tokens: [{token_id}].',
      body: BATCH_BODY, response: byToken(str()), errors: [...BATCH_ERRORS],
      handler: (req) => ok(perToken(engine, batchTokenIds(req.body as BatchItem[]), spreadOf)),
    },
    {
      method: 'GET', path: '/last-trade-price', surface: 'clob', engineState: true, summary: 'Price and taker side of the last fill; "" and "" before the first.',
      query: TOKEN_QUERY, response: obj({ price: str(), side: str() }), errors: [...TOKEN_ERRORS],
      handler: (req) => {
        const { market, outcome } = tokenOrThrow(engine, req.query.token_id);
        const last = lastTradeOf(market, outcome);
        return ok(last === undefined ? { price: '', side: '' } : { price: formatUnits(last.price), side: last.side });
      },
    },
    {
      method: 'POST', path: '/last-trades-prices', surface: 'clob', engineState: true, summary: 'Last fills of several tokens: [{token_id}]; tokens never traded are left out.',
      body: BATCH_BODY, response: arr(obj({ token_id: str(), price: str(), side: str() })), errors: [...BATCH_ERRORS],
      handler: (req) => {
        const out: { token_id: string; price: string; side: string }[] = [];
        for (const tokenId of batchTokenIds(req.body as BatchItem[])) {
          const ref = engine.marketOfToken(tokenId);
          const last = ref === undefined ? undefined : lastTradeOf(ref.market, ref.outcome);
          if (last !== undefined) out.push({ token_id: tokenId, price: formatUnits(last.price), side: last.side });
        }
        return ok(out);
      },
    },
    {
      method: 'GET', path: '/tick-size', surface: 'clob', engineState: true, summary: 'Minimum tick size of the token\'s market (a JSON number).',
      query: TOKEN_QUERY, response: obj({ minimum_tick_size: num() }), errors: [...TOKEN_ERRORS],
      handler: (req) => ok({ minimum_tick_size: tokenOrThrow(engine, req.query.token_id).market.params.tickSize / PRICE_ONE }),
    },
    {
      method: 'GET', path: '/neg-risk', surface: 'clob', engineState: true, summary: 'Whether the token\'s market is neg-risk.',
      query: TOKEN_QUERY, response: obj({ neg_risk: bool() }), errors: [...TOKEN_ERRORS],
      handler: (req) => ok({ neg_risk: tokenOrThrow(engine, req.query.token_id).market.params.negRisk }),
    },
    {
      method: 'GET', path: '/fee-rate', surface: 'clob', engineState: true, summary: 'Taker fee of the token\'s market in basis points.',
      query: TOKEN_QUERY, response: obj({ base_fee: int('Basis points.') }), errors: [...TOKEN_ERRORS],
      handler: (req) => ok({ base_fee: tokenOrThrow(engine, req.query.token_id).market.params.takerFeeBps }),
    },
    {
      method: 'GET', path: '/fees/builder-fees/{builder_code}', surface: 'clob',
      summary: 'Fee rates of a builder code in basis points: 0 and 0, since no builder fee is charged here.', params: BUILDER_CODE_PARAMS,
      response: obj({ builder_maker_fee_rate_bps: int('Basis points.'), builder_taker_fee_rate_bps: int('Basis points.') }), errors: ['bad_request'],
      handler: (req) => {
        if (typeof req.params.builder_code !== 'string' || !BUILDER_CODE.test(req.params.builder_code)) throw badRequest('builder_code: must be bytes32 hex (0x + 64 hex digits)');
        return ok({ builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0 });
      },
    },
  ];
}
