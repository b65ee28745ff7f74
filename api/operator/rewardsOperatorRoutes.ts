// The operator's liquidity rewards calls (docs/rewards.md): set or change a market's program, end it, read it.
// As every operator route: the token first, then the path and body checked exactly (400 changes nothing),
// then one engine command through the log, answered once durable; an engine refusal answers with its status.
//
// - POST /operator/markets/{condition_id}/rewards {dailyRate, maxSpread, minSize}: `dailyRate` USDC a UTC day
//   (decimal string, at most 6 decimals, above 0, at most 1,000,000); `maxSpread` cents from the
//   size-cutoff-adjusted midpoint (decimal string, at most 2 decimals, above 0, at most 50: "3.5" is 0.035);
//   `minSize` shares an order needs to score, also the midpoint's size cutoff (decimal string, "0" for none).
//   From the next minute's sample on.
// - DELETE /operator/markets/{condition_id}/rewards: ends the program; what the day accrued is still paid at
//   midnight UTC. 404 `market … has no liquidity rewards program` when it has none.
// - GET /operator/markets/{condition_id}/rewards: the program and the day so far.
// Answer: {conditionId, rewards: null | {dailyRate, maxSpread, minSize, since, midpoint, today: {day, samples,
// pool, earnings: [{address, amount}]}}}, amounts as decimal strings, `since` ISO 8601, `midpoint` the adjusted
// midpoint now ("" when the book is too thin).

import { MAX_DAILY_RATE, MAX_ORDER_AMOUNT, dayText, formatUnits, type Engine } from '../../engine/index.js';
import { anchored, decimalUpTo } from '../schemas/formats.js';
import { durableState, type CommandGateway } from '../../host/commandGateway.js';
import { ApiError, badRequest, type ApiErrorCode } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type Method, type Reply, type RouteDef } from '../http/apiTypes.js';
import { arr, int, obj, str } from '../schemas/common.js';
import { refusalOf } from '../trading/engineReplies.js';
import { OperatorToken } from './operatorAuth.js';
import { bodyValidator, conditionId, decimalUnits, readBody } from './operatorInputs.js';
import * as formats from './operatorSchemas.js';

export interface RewardsOperatorDeps {
  readonly host: CommandGateway;
  readonly token: string;
}

const decimal = (pattern: string, detail: string, description: string): JsonSchema => ({ type: 'string', pattern: anchored(pattern), 'x-error-pattern': { code: 'bad_request', detail }, description });
const BODY = obj({
  dailyRate: decimal(decimalUpTo(BigInt(MAX_DAILY_RATE), 6, { positive: true }), `dailyRate must be a decimal string of USDC with at most 6 decimals, above 0 and at most ${formatUnits(MAX_DAILY_RATE)}, such as "100"`, `USDC a UTC day: above 0, at most ${formatUnits(MAX_DAILY_RATE)}.`),
  maxSpread: decimal(decimalUpTo(5_000n, 2, { positive: true }), 'maxSpread must be a decimal string of cents with at most 2 decimals, above 0 and at most 50, such as "3.5"', 'Cents from the size-cutoff-adjusted midpoint: above 0, at most 50, at most 2 decimals.'),
  minSize: decimal(decimalUpTo(BigInt(MAX_ORDER_AMOUNT), 6), `minSize must be a decimal string of shares with at most 6 decimals, at most ${formatUnits(MAX_ORDER_AMOUNT)}, such as "50"`, 'Shares an order needs to score ("0": no minimum).'),
});

const PROGRAM = obj({
  dailyRate: str('USDC a day.'), maxSpread: str('Cents.'), minSize: str('Shares.'), since: str('ISO 8601: when the program started.'),
  midpoint: str('The size-cutoff-adjusted midpoint now, "" when the book is too thin.'),
  today: obj({ day: str('YYYY-MM-DD'), samples: int(), pool: str('USDC accrued so far.'), earnings: arr(obj({ address: str(), amount: str('USDC so far.') })) }, { optional: [] }),
}, { optional: ['today'] });
const RESPONSE = obj({ conditionId: str(), rewards: { anyOf: [{ type: 'null' }, PROGRAM] } });

const COMMON_ERRORS: readonly ApiErrorCode[] = ['operator_unauthorized', 'bad_request', 'rate_limited', 'unavailable', 'invalid_market'];

/** The program of a market as the operator reads it; undefined for an unknown market. */
export function rewardsView(engine: Engine, id: string): object | undefined {
  if (engine.market(id) === undefined) return undefined;
  const now = engine.rewardsNow(id);
  const program = engine.rewardTerms().get(id);
  if (program === undefined || now === undefined) return { conditionId: id, rewards: null };
  const today = engine.rewardDaySoFar(id);
  return {
    conditionId: id,
    rewards: {
      dailyRate: formatUnits(program.dailyRate), maxSpread: String(program.maxSpread / 10_000), minSize: formatUnits(program.minSize),
      since: new Date(program.since).toISOString(), midpoint: now.midpoint === undefined ? '' : formatUnits(now.midpoint),
      ...(today === undefined ? {} : {
        today: { day: dayText(today.day), samples: today.samples, pool: formatUnits(today.pool), earnings: [...today.earnings].map(([address, amount]) => ({ address, amount: formatUnits(amount) })) },
      }),
    },
  };
}

export function rewardsOperatorRoutes(deps: RewardsOperatorDeps): RouteDef[] {
  const token = new OperatorToken(deps.token);
  const engine = deps.host.engine;
  const validate = bodyValidator(BODY);
  const params = { type: 'object', properties: { condition_id: formats.conditionId() }, required: ['condition_id'] };
  const reply = (id: string): Reply => {
    const view = rewardsView(engine, id);
    if (view === undefined) throw new ApiError('market_not_found');
    return ok(view);
  };
  /** Submits one command; resolves at a durable state, at which the route reads its answer (operatorRoutes.ts). */
  const submit = async (command: Parameters<CommandGateway['submit']>[0]): Promise<void> => {
    const refusal = refusalOf(await deps.host.submit(command));
    if (refusal !== undefined) throw refusal;
    await durableState(deps.host);
  };
  const route = (method: Method, summary: string, errors: readonly ApiErrorCode[], handler: (req: ApiRequest, id: string) => Promise<Reply> | Reply): RouteDef => ({
    method, path: '/operator/markets/{condition_id}/rewards', surface: 'service', summary, response: RESPONSE, errors: [...COMMON_ERRORS, ...errors], params,
    ...(method === 'GET' ? { engineState: true } : {}),
    ...(method === 'POST' ? { body: BODY } : {}),
    guard: (req) => token.require(req.headers),
    handler: (req) => {
      token.require(req.headers);
      return handler(req, conditionId(req.params.condition_id ?? ''));
    },
  });
  return [
    route('POST', "Set or change a market's liquidity rewards program (from the next minute)", ['engine_rejected', 'engine_rejected_not_found'], async (req, id) => {
      const body = readBody<{ dailyRate: string; maxSpread: string; minSize: string }>(req.rawBody, validate);
      const dailyRate = decimalUnits(body.dailyRate, 'dailyRate');
      if (dailyRate <= 0n || dailyRate > BigInt(MAX_DAILY_RATE)) throw badRequest(`dailyRate must be above 0 and at most ${formatUnits(MAX_DAILY_RATE)}`);
      // Cents to micro-units: 1 cent = 10,000; at most 2 decimals keeps it whole.
      const spread = decimalUnits(body.maxSpread, 'maxSpread');
      if (spread % 10_000n !== 0n || spread <= 0n || spread > 50_000_000n) throw badRequest('maxSpread must be above 0 and at most 50 cents, with at most 2 decimals');
      const minSize = decimalUnits(body.minSize, 'minSize');
      await submit({ type: 'SetMarketRewards', conditionId: id, dailyRate: Number(dailyRate), maxSpread: Number(spread / 100n), minSize: Number(minSize) });
      return reply(id);
    }),
    route('DELETE', "End a market's liquidity rewards program (the day so far is still paid at midnight UTC)", ['engine_rejected_not_found'], async (_req, id) => {
      await submit({ type: 'EndMarketRewards', conditionId: id });
      return reply(id);
    }),
    route('GET', "A market's liquidity rewards program and the day so far", ['market_not_found'], (_req, id) => reply(id)),
  ];
}
