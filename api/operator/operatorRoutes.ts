// The operator API (`/operator/*`, the service surface): money in and out, markets listed and managed by
// hand, and signer authorisations for signature types 1 and 2. Mounted only when an operator token is
// configured. Every route first checks `Authorization: Bearer <token>` (operatorAuth.ts) and refuses with 401
// before it reads anything else; then it checks its body and parameters exactly (operatorInputs.ts), so bad
// input is a 400 that changes nothing; then it submits one engine command through the log and answers once
// it is durable. An engine refusal answers with the reject's status and the engine's own message.
// Endpoints, bodies and curl examples: README.md here.

import type { Command, Engine } from '../../engine/index.js';
import type { Submission } from '../../host/engineHost.js';
import type { CommandGateway } from '../../host/commandGateway.js';
import { ApiError, badRequest, type ApiErrorCode } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type Method, type Reply, type RouteDef } from '../http/apiTypes.js';
import { bool, obj, str } from '../schemas/common.js';
import { refusalOf } from '../trading/engineReplies.js';
import { OperatorToken } from './operatorAuth.js';
import { address, bodyValidator, conditionId, minSize, readBody, tickSize, tokenId, usdcAmount } from './operatorInputs.js';
import { ACCOUNT_RESPONSE, BALANCE_RESPONSE, MARKET_RESPONSE, SIGNERS_RESPONSE, accountView, balanceView, marketView, signersView } from './operatorViews.js';

export interface OperatorDeps {
  /** The engine host: commands go through the log; reads come from `host.engine`. */
  readonly host: CommandGateway;
  /** The configured operator token (config `operatorToken`). */
  readonly token: string;
}

const bps = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, maximum: 10_000, description });

const MONEY_BODY = obj({ address: str(), amount: str('USDC as a decimal string, at most 6 decimals') });
const LIST_BODY = obj(
  { conditionId: str(), tokenIds: { type: 'array', items: str(), minItems: 2, maxItems: 2 }, tickSize: str(), minSize: str(), makerFeeBps: bps('maker fee'), takerFeeBps: bps('taker fee'), negRisk: bool() },
  { optional: ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps', 'negRisk'] },
);
const PARAMS_BODY = obj(
  { tickSize: str(), minSize: str(), makerFeeBps: bps('maker fee'), takerFeeBps: bps('taker fee'), negRisk: bool() },
  { optional: ['tickSize', 'minSize', 'makerFeeBps', 'takerFeeBps', 'negRisk'] },
);
const RESOLVE_BODY = obj({ winningOutcome: { type: 'integer', enum: [0, 1] }, winningTokenId: str() }, { optional: ['winningOutcome', 'winningTokenId'] });
const PAIR_BODY = obj({ maker: str(), signer: str() });

interface MoneyBody { address: string; amount: string }
interface ListBody { conditionId: string; tokenIds: string[]; tickSize?: string; minSize?: string; makerFeeBps?: number; takerFeeBps?: number; negRisk?: boolean }
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
    resolve: bodyValidator(RESOLVE_BODY), pair: bodyValidator(PAIR_BODY),
  };

  /** Submits one command; throws the engine's refusal, if any. */
  const submit = async (command: Submission): Promise<void> => {
    const refusal = refusalOf(await deps.host.submit(command));
    if (refusal !== undefined) throw refusal;
  };

  const route = (method: Method, path: string, summary: string, response: JsonSchema, errors: readonly ApiErrorCode[], handler: (req: ApiRequest) => Promise<Reply> | Reply): RouteDef => ({
    method, path, surface: 'service', summary, response, errors: [...COMMON_ERRORS, ...errors],
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

  const lifecycle = (type: 'PauseMarket' | 'ResumeMarket') => async (req: ApiRequest): Promise<Reply> => {
    const id = conditionId(param(req, 'condition_id'));
    await submit({ type, conditionId: id });
    return marketReply(id);
  };

  const pair = (req: ApiRequest): PairBody => {
    const body = readBody<PairBody>(req.rawBody, validators.pair);
    const maker = address(body.maker, 'maker');
    const signer = address(body.signer, 'signer');
    if (maker === signer) throw badRequest('signer must differ from maker (a maker signs its own orders without authorisation)');
    return { maker, signer };
  };

  return [
    route('POST', '/operator/deposit', 'Credit USDC to an address', BALANCE_RESPONSE, ['engine_rejected'], money('Deposit')),
    route('POST', '/operator/withdraw', "Debit USDC from an address's free balance", BALANCE_RESPONSE, ['engine_rejected'], money('Withdraw')),
    route('GET', '/operator/accounts/{address}', 'Collateral and token balances of an address', ACCOUNT_RESPONSE, [], (req) => ok(accountView(engine, address(param(req, 'address'), 'address')))),

    route('POST', '/operator/markets', 'List a market on the engine', MARKET_RESPONSE, ['invalid_market', 'engine_rejected'], async (req) => {
      const body = readBody<ListBody>(req.rawBody, validators.list);
      const id = conditionId(body.conditionId);
      const [t0, t1] = body.tokenIds.map((t, i) => tokenId(t, `tokenIds.${i}`)) as [string, string];
      if (t0 === t1) throw badRequest('tokenIds must be two different token ids');
      await submit({
        type: 'ListMarket', conditionId: id, tokenIds: [t0, t1], tickSize: tickSize(body.tickSize ?? DEFAULT_TICK), minSize: minSize(body.minSize ?? DEFAULT_MIN_SIZE),
        makerFeeBps: body.makerFeeBps ?? 0, takerFeeBps: body.takerFeeBps ?? 0, negRisk: body.negRisk ?? false,
      });
      return marketReply(id);
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
      await submit({ type: 'AuthorizeSigner', maker, signer });
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
