// The operator API (`/operator/*`, the service surface): money in and out, markets listed and managed by
// hand, and signer authorisations for signature types 1 and 2. Mounted only when an operator token is
// configured. Every route first checks `Authorization: Bearer <token>` (operatorAuth.ts, the routes' guard) and
// refuses with 401 before it reads anything else; then the server checks its path parameters and body against
// their schemas (BODIES and PATH_PARAMS below, formats in operatorSchemas.ts; the OpenAPI document states
// them), and the handler reads them exactly (operatorInputs.ts), so bad input is a 400 that changes nothing;
// then it submits one engine command through the log and answers once it is durable. An engine refusal answers
// with the reject's status and the engine's own message. A new route with a body adds it to BODIES.
// Endpoints, bodies and curl examples: README.md here.

import type { Command, Engine } from '../../engine/index.js';
import type { Submission } from '../../host/engineHost.js';
import { durableState, type CommandGateway } from '../../host/commandGateway.js';
import { ApiError, badRequest, type ApiErrorCode } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type Method, type Reply, type RouteDef } from '../http/apiTypes.js';
import { bool, obj } from '../schemas/common.js';
import { refusalOf } from '../trading/engineReplies.js';
import { OperatorToken } from './operatorAuth.js';
import * as formats from './operatorSchemas.js';
import { address, bodyValidator, conditionId, minSize, negRiskMarketId, readBody, tickSize, tokenId, usdcAmount } from './operatorInputs.js';
import { ACCOUNT_RESPONSE, BALANCE_RESPONSE, MARKET_RESPONSE, NEG_RISK_EVENT_RESPONSE, SIGNERS_RESPONSE, accountView, balanceView, marketView, negRiskEventView, signersView } from './operatorViews.js';

export interface OperatorDeps {
  /** The engine host: commands go through the log; reads come from `host.engine`. */
  readonly host: CommandGateway;
  /** The configured operator token (config `operatorToken`). */
  readonly token: string;
}

const bps = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, maximum: 10_000, description });

const bad = (detail: string): { code: 'bad_request'; detail: string } => ({ code: 'bad_request', detail });
const MONEY_BODY = obj({ address: formats.address('address'), amount: formats.usdcAmount() });
const QUESTION_INDEX: JsonSchema = { type: 'integer', minimum: 0, maximum: 255, description: "the question's index in its neg-risk event" };
const LIST_FIELDS = {
  conditionId: formats.conditionId(),
  tokenIds: { type: 'array', items: formats.tokenId(), minItems: 2, maxItems: 2, uniqueItems: true, 'x-error-uniqueItems': bad('tokenIds must be two different token ids'), description: 'The two outcome tokens, different.' },
  tickSize: formats.tickSize(), minSize: formats.minSize(), makerFeeBps: bps('maker fee'), takerFeeBps: bps('taker fee'),
} as const;
const LIST_BODY = {
  ...obj(
    { ...LIST_FIELDS, negRisk: bool(), negRiskMarketId: formats.negRiskMarketId('negRiskMarketId', 'the neg-risk event to list the market into (0x + 64 hex)'), questionIndex: QUESTION_INDEX },
    { optional: ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps', 'negRisk', 'negRiskMarketId', 'questionIndex'] },
  ),
  dependentRequired: { negRiskMarketId: ['questionIndex'], questionIndex: ['negRiskMarketId'] },
  'x-error-dependentRequired': bad('give both negRiskMarketId and questionIndex, or neither'),
};
const QUESTION_BODY = obj({ ...LIST_FIELDS, questionIndex: QUESTION_INDEX }, { optional: ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps'] });
const RESOLVE_EVENT_BODY = obj({ winningConditionId: formats.conditionId('The winning market\'s condition id.') });
const PARAMS_BODY = {
  ...obj(
    { tickSize: formats.tickSize(), minSize: formats.minSize(), makerFeeBps: bps('maker fee'), takerFeeBps: bps('taker fee'), negRisk: bool() },
    { optional: ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps', 'negRisk'] },
  ),
  minProperties: 1,
  'x-error-minProperties': bad('give at least one of tickSize, minSize, makerFeeBps, takerFeeBps, negRisk'),
};
const RESOLVE_BODY = {
  ...obj({ winningOutcome: { type: 'integer', enum: [0, 1] }, winningTokenId: formats.tokenId('The winning token (one of the market\'s two).') }, { optional: ['winningOutcome', 'winningTokenId'] }),
  oneOf: [{ required: ['winningOutcome'] }, { required: ['winningTokenId'] }],
  'x-error-oneOf': bad('give exactly one of winningOutcome and winningTokenId'),
};
/** A maker and a signer; a maker needs no authorisation of itself (POST: nothing to do; DELETE: nothing authorised). */
const PAIR_BODY = obj({ maker: formats.address('maker'), signer: formats.address('signer') });

/** The body of each route that has one (the server checks it after the token). */
const BODIES: Readonly<Record<string, JsonSchema>> = {
  'POST /operator/deposit': MONEY_BODY,
  'POST /operator/withdraw': MONEY_BODY,
  'POST /operator/markets': LIST_BODY,
  'POST /operator/neg-risk-events/{neg_risk_market_id}/markets': QUESTION_BODY,
  'POST /operator/neg-risk-events/{neg_risk_market_id}/resolve': RESOLVE_EVENT_BODY,
  'POST /operator/markets/{condition_id}/params': PARAMS_BODY,
  'POST /operator/markets/{condition_id}/resolve': RESOLVE_BODY,
  'POST /operator/signers': PAIR_BODY,
  'DELETE /operator/signers': PAIR_BODY,
};

/** The schema of each path parameter, by name. */
const PATH_PARAMS: Readonly<Record<string, JsonSchema>> = {
  address: formats.address('address'),
  maker: formats.address('maker'),
  condition_id: formats.conditionId(),
  neg_risk_market_id: formats.negRiskMarketId('neg_risk_market_id'),
};

function paramsOf(path: string): JsonSchema | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  if (names.length === 0) return undefined;
  return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, PATH_PARAMS[n] ?? { type: 'string' }])), required: names };
}

interface MoneyBody { address: string; amount: string }
interface ListBody { conditionId: string; tokenIds: string[]; tickSize?: string; minSize?: string; makerFeeBps?: number; takerFeeBps?: number; negRisk?: boolean; negRiskMarketId?: string; questionIndex?: number }
type ParamsBody = Partial<Pick<ListBody, 'tickSize' | 'minSize' | 'makerFeeBps' | 'takerFeeBps' | 'negRisk'>>;
interface ResolveBody { winningOutcome?: 0 | 1; winningTokenId?: string }
interface PairBody { maker: string; signer: string }

const DEFAULT_TICK = '0.01';
const DEFAULT_MIN_SIZE = '5';
const COMMON_ERRORS: readonly ApiErrorCode[] = ['operator_unauthorized', 'bad_request', 'rate_limited', 'unavailable'];

type Untimed<C extends Command['type']> = Omit<Extract<Command, { type: C }>, 'time'>;

export function operatorRoutes(deps: OperatorDeps): RouteDef[] {
  const token = new OperatorToken(deps.token);
  const engine: Engine = deps.host.engine;
  const validators = {
    money: bodyValidator(MONEY_BODY), list: bodyValidator(LIST_BODY), params: bodyValidator(PARAMS_BODY),
    resolve: bodyValidator(RESOLVE_BODY), pair: bodyValidator(PAIR_BODY), question: bodyValidator(QUESTION_BODY), resolveEvent: bodyValidator(RESOLVE_EVENT_BODY),
  };

  /**
   * Submits one command; throws the engine's refusal, if any. Resolves at a durable state, so that the view the
   * route answers with (read right after, with no await between) holds no batch still being appended.
   */
  const submit = async (command: Submission): Promise<void> => {
    const refusal = refusalOf(await deps.host.submit(command));
    if (refusal !== undefined) throw refusal;
    await durableState(deps.host);
  };

  const route = (method: Method, path: string, summary: string, response: JsonSchema, errors: readonly ApiErrorCode[], handler: (req: ApiRequest) => Promise<Reply> | Reply): RouteDef => ({
    method, path, surface: 'service', summary, response, errors: [...COMMON_ERRORS, ...errors],
    // A view of the engine's state (GET) is read at a durable state; a command's route reads its view after
    // submit(), which resolves at one.
    ...(method === 'GET' ? { engineState: true } : {}),
    // The token first; then the server checks the path and the body against their schemas.
    guard: (req) => token.require(req.headers),
    ...(paramsOf(path) === undefined ? {} : { params: paramsOf(path) }),
    ...(BODIES[`${method} ${path}`] === undefined ? {} : { body: BODIES[`${method} ${path}`] }),
    handler: (req) => {
      token.require(req.headers);
      return handler(req);
    },
  });

  const param = (req: ApiRequest, name: string): string => req.params[name] ?? '';

  const money = (type: 'Deposit' | 'Withdraw') => async (req: ApiRequest): Promise<Reply> => {
    const body = readBody<MoneyBody>(req.rawBody, validators.money);
    const account = address(body.address, 'address');
    const command: Untimed<'Deposit'> | Untimed<'Withdraw'> = { type, account, amount: usdcAmount(body.amount) };
    await submit(command);
    return ok(balanceView(engine, account));
  };

  const marketReply = (id: string): Reply => {
    const view = marketView(engine, id);
    if (view === undefined) throw new ApiError('market_not_found');
    return ok(view);
  };

  /** Lists a market, as a question of a neg-risk event when `event` is given (negRisk then defaults to true). */
  const listMarket = async (body: ListBody, event?: { negRiskMarketId: string; questionIndex: number }): Promise<Reply> => {
    const id = conditionId(body.conditionId);
    const [t0, t1] = body.tokenIds.map((t, i) => tokenId(t, `tokenIds.${i}`)) as [string, string];
    if (t0 === t1) throw badRequest('tokenIds must be two different token ids');
    await submit({
      type: 'ListMarket', conditionId: id, tokenIds: [t0, t1], tickSize: tickSize(body.tickSize ?? DEFAULT_TICK), minSize: minSize(body.minSize ?? DEFAULT_MIN_SIZE),
      makerFeeBps: body.makerFeeBps ?? 0, takerFeeBps: body.takerFeeBps ?? 0, negRisk: body.negRisk ?? event !== undefined, ...event,
    });
    return marketReply(id);
  };

  const eventReply = (id: string): Reply => {
    const view = negRiskEventView(engine, id);
    if (view === undefined) throw new ApiError('neg_risk_event_not_found');
    return ok(view);
  };

  const lifecycle = (type: 'PauseMarket' | 'ResumeMarket') => async (req: ApiRequest): Promise<Reply> => {
    const id = conditionId(param(req, 'condition_id'));
    await submit({ type, conditionId: id });
    return marketReply(id);
  };

  const pair = (req: ApiRequest): PairBody => {
    const body = readBody<PairBody>(req.rawBody, validators.pair);
    const maker = address(body.maker, 'maker');
    const signer = address(body.signer, 'signer');
    return { maker, signer };
  };

  return [
    route('POST', '/operator/deposit', 'Credit USDC to an address', BALANCE_RESPONSE, ['engine_rejected'], money('Deposit')),
    route('POST', '/operator/withdraw', "Debit USDC from an address's free balance", BALANCE_RESPONSE, ['engine_rejected'], money('Withdraw')),
    route('GET', '/operator/accounts/{address}', 'Collateral and token balances of an address', ACCOUNT_RESPONSE, [], (req) => ok(accountView(engine, address(param(req, 'address'), 'address')))),

    route('POST', '/operator/markets', 'List a market on the engine (as a question of a neg-risk event with negRiskMarketId and questionIndex)', MARKET_RESPONSE, ['invalid_market', 'engine_rejected'], async (req) => {
      const body = readBody<ListBody>(req.rawBody, validators.list);
      if ((body.negRiskMarketId === undefined) !== (body.questionIndex === undefined)) throw badRequest('give both negRiskMarketId and questionIndex, or neither');
      const event = body.negRiskMarketId === undefined ? undefined : { negRiskMarketId: negRiskMarketId(body.negRiskMarketId), questionIndex: body.questionIndex ?? 0 };
      return listMarket(body, event);
    }),
    route('POST', '/operator/neg-risk-events/{neg_risk_market_id}/markets', 'Add a market to a neg-risk event as its question questionIndex (the first one creates the event)', MARKET_RESPONSE, ['invalid_market', 'engine_rejected'], async (req) => {
      const event = negRiskMarketId(param(req, 'neg_risk_market_id'), 'neg_risk_market_id');
      const body = readBody<ListBody & { questionIndex: number }>(req.rawBody, validators.question);
      return listMarket(body, { negRiskMarketId: event, questionIndex: body.questionIndex });
    }),
    route('GET', '/operator/neg-risk-events/{neg_risk_market_id}', 'A neg-risk event: its questions, winner and what conversions paid ahead', NEG_RISK_EVENT_RESPONSE, ['neg_risk_event_not_found'], (req) => eventReply(negRiskMarketId(param(req, 'neg_risk_market_id'), 'neg_risk_market_id'))),
    route('POST', '/operator/neg-risk-events/{neg_risk_market_id}/resolve', 'Resolve a neg-risk event by its winning market: it YES, every other question NO', NEG_RISK_EVENT_RESPONSE, ['invalid_market', 'engine_rejected', 'engine_rejected_not_found'], async (req) => {
      const event = negRiskMarketId(param(req, 'neg_risk_market_id'), 'neg_risk_market_id');
      const body = readBody<{ winningConditionId: string }>(req.rawBody, validators.resolveEvent);
      await submit({ type: 'ResolveNegRiskEvent', negRiskMarketId: event, winningConditionId: conditionId(body.winningConditionId) });
      return eventReply(event);
    }),
    route('GET', '/operator/markets/{condition_id}', 'A market as the engine holds it', MARKET_RESPONSE, ['invalid_market', 'market_not_found'], (req) => marketReply(conditionId(param(req, 'condition_id')))),
    route('POST', '/operator/markets/{condition_id}/params', "Change a market's tick, minimum size, fees or negRisk", MARKET_RESPONSE, ['invalid_market', 'engine_rejected', 'engine_rejected_not_found'], async (req) => {
      const id = conditionId(param(req, 'condition_id'));
      const body = readBody<ParamsBody>(req.rawBody, validators.params);
      if (Object.keys(body).length === 0) throw badRequest('give at least one of tickSize, minSize, makerFeeBps, takerFeeBps, negRisk');
      await submit({
        type: 'UpdateMarket', conditionId: id,
        ...(body.tickSize === undefined ? {} : { tickSize: tickSize(body.tickSize) }),
        ...(body.minSize === undefined ? {} : { minSize: minSize(body.minSize) }),
        ...(body.makerFeeBps === undefined ? {} : { makerFeeBps: body.makerFeeBps }),
        ...(body.takerFeeBps === undefined ? {} : { takerFeeBps: body.takerFeeBps }),
        ...(body.negRisk === undefined ? {} : { negRisk: body.negRisk }),
      });
      return marketReply(id);
    }),
    route('POST', '/operator/markets/{condition_id}/pause', 'Pause trading on a market', MARKET_RESPONSE, ['invalid_market', 'engine_rejected', 'engine_rejected_not_found'], lifecycle('PauseMarket')),
    route('POST', '/operator/markets/{condition_id}/resume', 'Resume trading on a paused market', MARKET_RESPONSE, ['invalid_market', 'engine_rejected', 'engine_rejected_not_found'], lifecycle('ResumeMarket')),
    route('POST', '/operator/markets/{condition_id}/resolve', 'Resolve a market: cancels its orders, winning tokens redeem 1 USDC', MARKET_RESPONSE, ['invalid_market', 'engine_rejected', 'engine_rejected_not_found'], async (req) => {
      const id = conditionId(param(req, 'condition_id'));
      const body = readBody<ResolveBody>(req.rawBody, validators.resolve);
      if ((body.winningOutcome === undefined) === (body.winningTokenId === undefined)) throw badRequest('give exactly one of winningOutcome and winningTokenId');
      let winningOutcome = body.winningOutcome;
      if (body.winningTokenId !== undefined) {
        const winner = tokenId(body.winningTokenId, 'winningTokenId');
        const market = engine.market(id);
        if (market === undefined) throw new ApiError('market_not_found');
        const index = market.tokenIds.indexOf(winner);
        if (index < 0) throw badRequest(`winningTokenId ${winner} is not a token of market ${id}`);
        winningOutcome = index === 0 ? 0 : 1;
      }
      await submit({ type: 'ResolveMarket', conditionId: id, winningOutcome: winningOutcome ?? 0 });
      return marketReply(id);
    }),

    route('POST', '/operator/signers', 'Authorise a signer to sign orders for a maker (signature types 1 and 2)', SIGNERS_RESPONSE, ['engine_rejected'], async (req) => {
      const { maker, signer } = pair(req);
      // A maker signs its own orders without authorisation: there is nothing to record.
      if (maker !== signer) await submit({ type: 'AuthorizeSigner', maker, signer });
      return ok(signersView(engine, maker));
    }),
    route('DELETE', '/operator/signers', "Revoke a signer's authorisation for a maker", SIGNERS_RESPONSE, ['engine_rejected_not_found'], async (req) => {
      const { maker, signer } = pair(req);
      await submit({ type: 'RevokeSigner', maker, signer });
      return ok(signersView(engine, maker));
    }),
    route('GET', '/operator/signers/{maker}', 'The signers authorised for a maker', SIGNERS_RESPONSE, [], (req) => ok(signersView(engine, address(param(req, 'maker'), 'maker')))),
  ];
}
