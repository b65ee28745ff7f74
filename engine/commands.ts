// Commands: the closed set of requests the engine can apply, in the imperative. Every command carries the
// time at which the host accepted it (ms since the epoch); the engine never reads a clock. Amounts and
// prices are integers in the units of units.ts. Identifiers (order ids, addresses, token ids) are computed
// outside the engine and passed in.

import type { AccessKeyKind } from './accessKeyTable.js';

export type Side = 'BUY' | 'SELL';
export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';
export type Outcome = 0 | 1;

interface CommandBase {
  /** Host time in ms since the epoch. The engine uses max(previous time, this). */
  readonly time: number;
}

/**
 * The signed HTTP request a command was asked for with (L2 headers), so that one signed request is applied
 * at most once (engine/signedRequests.ts). `id`: the request's HMAC (hex), unique per key, time, method, path
 * and body. `signedAt`: its signed timestamp (ms); `until`: the end of its freshness window (ms). Absent on
 * commands that no signed request asked for (operator, tools, logs written before stamps existed).
 */
export interface SignedRequest {
  readonly id: string;
  readonly signedAt: number;
  readonly until: number;
}

/** Commands an L2-signed request asks for that would move funds or positions again if applied twice. */
interface StampedCommand extends CommandBase {
  readonly request?: SignedRequest;
}

export interface MarketParams {
  readonly tickSize: number;
  readonly minSize: number;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly negRisk: boolean;
}

export interface ListMarket extends CommandBase, MarketParams {
  readonly type: 'ListMarket';
  readonly conditionId: string;
  /** Outcome 0's and outcome 1's token ids. */
  readonly tokenIds: readonly [string, string];
  /**
   * The neg-risk event (upstream's neg-risk adapter market id) this market joins as a question, with
   * `questionIndex`; the event exists from its first market on (engine/negRisk.ts). Both or neither; needs
   * `negRisk: true`. Absent: a market on its own (all logs written before events existed).
   */
  readonly negRiskMarketId?: string;
  /** Its question index in the event, 0..255 (upstream's questionId ends in it), free in that event. */
  readonly questionIndex?: number;
}

export interface UpdateMarket extends CommandBase, Partial<MarketParams> {
  readonly type: 'UpdateMarket';
  readonly conditionId: string;
}

export interface PauseMarket extends CommandBase {
  readonly type: 'PauseMarket';
  readonly conditionId: string;
}

export interface ResumeMarket extends CommandBase {
  readonly type: 'ResumeMarket';
  readonly conditionId: string;
}

export interface ResolveMarket extends CommandBase {
  readonly type: 'ResolveMarket';
  readonly conditionId: string;
  readonly winningOutcome: Outcome;
}

export interface Deposit extends CommandBase {
  readonly type: 'Deposit';
  readonly account: string;
  readonly amount: number;
}

export interface Withdraw extends CommandBase {
  readonly type: 'Withdraw';
  readonly account: string;
  readonly amount: number;
}

export interface PlaceOrder extends CommandBase {
  readonly type: 'PlaceOrder';
  /** The EIP-712 hash of the signed order. */
  readonly orderId: string;
  /** The address whose balances fund the order (the order's maker). */
  readonly account: string;
  /** Opaque owner tag carried into events (the API key that placed the order). */
  readonly owner: string;
  readonly tokenId: string;
  readonly side: Side;
  /** BUY: collateral offered; SELL: tokens offered. Base units. */
  readonly makerAmount: number;
  /** BUY: tokens wanted; SELL: collateral wanted. Base units. */
  readonly takerAmount: number;
  readonly orderType: OrderType;
  readonly postOnly: boolean;
  /** Unix seconds; 0 = none. Required for GTD, must be 0 otherwise. */
  readonly expiration: number;
  /**
   * ms since the epoch until which the engine must refuse this id again once the order is done. The API sets
   * it from the signed order's timestamp plus its freshness window, beyond which it refuses the order itself.
   */
  readonly dedupeUntil: number;
  /**
   * The signed order's timestamp (ms), at most dedupeUntil and at most MAX_SIGNED_WINDOW_MS before it. Once the
   * engine forgets a finished id, every order signed at or before that id's timestamp is refused as stale, so a
   * forgotten order can never be accepted again, whatever window later commands are given. Absent in logs
   * written before it existed (such an order then does not move that horizon).
   */
  readonly signedAt?: number;
  /** Opaque builder code from the signed order (bytes32 hex), carried into OrderAccepted for attribution. */
  readonly builder?: string;
}

export interface CancelOrder extends CommandBase {
  readonly type: 'CancelOrder';
  readonly orderId: string;
  /** The caller; only its own orders are cancelled. */
  readonly account: string;
}

export interface CancelOrders extends CommandBase {
  readonly type: 'CancelOrders';
  readonly orderIds: readonly string[];
  readonly account: string;
}

export interface CancelAll extends CommandBase {
  readonly type: 'CancelAll';
  readonly account: string;
}

export interface CancelMarketOrders extends CommandBase {
  readonly type: 'CancelMarketOrders';
  readonly account: string;
  /** Either or both; with neither, nothing is cancelled. */
  readonly conditionId?: string;
  readonly tokenId?: string;
}

export interface Split extends StampedCommand {
  readonly type: 'Split';
  readonly account: string;
  readonly conditionId: string;
  readonly amount: number;
}

export interface Merge extends StampedCommand {
  readonly type: 'Merge';
  readonly account: string;
  readonly conditionId: string;
  readonly amount: number;
}

export interface Redeem extends StampedCommand {
  readonly type: 'Redeem';
  readonly account: string;
  readonly conditionId: string;
}

/**
 * The neg-risk adapter's convertPositions: burns `amount` NO of each question of `negRiskMarketId` named in
 * `indexSet`, and credits `amount` YES of each other question and (k − 1) × `amount` collateral, k being
 * the number of questions named (engine/negRiskCommands.ts). `indexSet`: a decimal uint256 whose bit i
 * (least significant first) names the question of index i.
 */
export interface ConvertPositions extends StampedCommand {
  readonly type: 'ConvertPositions';
  readonly account: string;
  readonly negRiskMarketId: string;
  readonly indexSet: string;
  readonly amount: number;
}

/**
 * Makes a listed market (negRisk, not resolved, in no event) question `questionIndex` of `negRiskMarketId`, as
 * ListMarket with those fields would have listed it: for markets listed before neg-risk events existed.
 */
export interface JoinNegRiskEvent extends CommandBase {
  readonly type: 'JoinNegRiskEvent';
  readonly conditionId: string;
  readonly negRiskMarketId: string;
  readonly questionIndex: number;
}

/**
 * Resolves a neg-risk event by its winner: `winningConditionId` YES (unless already so) and every other
 * question not yet resolved NO, in question order. One command, so the event never stands half-resolved.
 */
export interface ResolveNegRiskEvent extends CommandBase {
  readonly type: 'ResolveNegRiskEvent';
  readonly negRiskMarketId: string;
  readonly winningConditionId: string;
}

/**
 * Records the API key derived outside the engine for (address, nonce). The engine never sees secrets: the
 * key's secret and passphrase are re-derived from a server master secret (auth/credentials.ts), so the log
 * carries only who owns which key. `address` is lower-case `0x` + 40 hex; `nonce` a canonical decimal
 * uint256 string (no leading zeros); `apiKey` UUID-shaped, lower-case.
 */
export interface CreateApiKey extends CommandBase {
  readonly type: 'CreateApiKey';
  readonly address: string;
  readonly nonce: string;
  readonly apiKey: string;
}

/** Retires `address`'s key `apiKey` for good: neither the key nor its (address, nonce) can come back. */
export interface DeleteApiKey extends CommandBase {
  readonly type: 'DeleteApiKey';
  readonly apiKey: string;
  readonly address: string;
}

/**
 * Lets `signer` sign orders whose funds are `maker`'s (signature types 1 and 2: a proxy wallet or a Safe
 * funded as `maker`, signed by the EOA `signer`). Issued by the operator; both addresses lower-case
 * `0x` + 40 hex, and distinct.
 */
export interface AuthorizeSigner extends CommandBase {
  readonly type: 'AuthorizeSigner';
  readonly maker: string;
  readonly signer: string;
}

/** Withdraws an authorisation made by AuthorizeSigner; open orders are not touched. */
export interface RevokeSigner extends CommandBase {
  readonly type: 'RevokeSigner';
  readonly maker: string;
  readonly signer: string;
}

/**
 * A heartbeat of `account`'s session (engine/heartbeats.ts). `previousId`: the id the last accepted heartbeat
 * named, or '' to start (or restart) the session; `heartbeatId`: the id the next heartbeat must carry, made by
 * the host; `timeoutMs`: the session's window from this heartbeat, in the log so that replay needs no setting.
 */
export interface Heartbeat extends CommandBase {
  readonly type: 'Heartbeat';
  readonly account: string;
  readonly previousId: string;
  readonly heartbeatId: string;
  readonly timeoutMs: number;
}

/**
 * Records a read-only or builder API key of `address` (engine/accessKeyTable.ts). `key` is a random lower-case
 * UUID v4 made by the API; no secret ever reaches the engine (a builder key's secret is derived outside it).
 * Stamped with its signed request: a replayed create would hand out another key (engine/signedRequests.ts).
 */
export interface CreateAccessKey extends StampedCommand {
  readonly type: 'CreateAccessKey';
  readonly kind: AccessKeyKind;
  readonly address: string;
  readonly key: string;
}

/** Revokes `address`'s live `kind` key `key`: it stops working at once and is forgotten. */
export interface RevokeAccessKey extends CommandBase {
  readonly type: 'RevokeAccessKey';
  readonly kind: AccessKeyKind;
  readonly address: string;
  readonly key: string;
}

/**
 * Drops notifications of `account` (lower-case address) by id (projections/notifications/): the engine keeps
 * no notification state; it checks the shape and records NotificationsDropped, so that a drop is in the log
 * and every rebuild of the notifications applies it. Ids are non-negative safe integers, 1 to
 * MAX_DROPPED_NOTIFICATIONS of them.
 */
export interface DropNotifications extends CommandBase {
  readonly type: 'DropNotifications';
  readonly account: string;
  readonly ids: readonly number[];
}

/**
 * Sets or changes `conditionId`'s liquidity rewards program (engine/rewards/, docs/rewards.md): a pool of
 * `dailyRate` base units a UTC day, shared by the makers whose orders rest within `maxSpread` (micro-units) of
 * the size-cutoff-adjusted midpoint with at least `minSize` (base units) open. From the next sample on.
 */
export interface SetMarketRewards extends CommandBase {
  readonly type: 'SetMarketRewards';
  readonly conditionId: string;
  readonly dailyRate: number;
  readonly maxSpread: number;
  readonly minSize: number;
}

/** Ends `conditionId`'s rewards program: no more samples; what the day accrued so far is still paid at its end. */
export interface EndMarketRewards extends CommandBase {
  readonly type: 'EndMarketRewards';
  readonly conditionId: string;
}

/** Moves time forward with no other effect: GTD orders whose time has come expire. */
export interface AdvanceTime extends CommandBase {
  readonly type: 'AdvanceTime';
}

export type Command =
  | ListMarket
  | UpdateMarket
  | PauseMarket
  | ResumeMarket
  | ResolveMarket
  | Deposit
  | Withdraw
  | PlaceOrder
  | CancelOrder
  | CancelOrders
  | CancelAll
  | CancelMarketOrders
  | Split
  | Merge
  | Redeem
  | ConvertPositions
  | JoinNegRiskEvent
  | ResolveNegRiskEvent
  | CreateApiKey
  | DeleteApiKey
  | AuthorizeSigner
  | RevokeSigner
  | CreateAccessKey
  | RevokeAccessKey
  | Heartbeat
  | DropNotifications
  | SetMarketRewards
  | EndMarketRewards
  | AdvanceTime;

export type CommandType = Command['type'];

export const COMMAND_TYPES: readonly CommandType[] = [
  'ListMarket', 'UpdateMarket', 'PauseMarket', 'ResumeMarket', 'ResolveMarket', 'Deposit', 'Withdraw',
  'PlaceOrder', 'CancelOrder', 'CancelOrders', 'CancelAll', 'CancelMarketOrders', 'Split', 'Merge', 'Redeem',
  'ConvertPositions', 'JoinNegRiskEvent', 'ResolveNegRiskEvent', 'CreateApiKey', 'DeleteApiKey', 'AuthorizeSigner', 'RevokeSigner', 'CreateAccessKey', 'RevokeAccessKey', 'Heartbeat',
  'DropNotifications', 'SetMarketRewards', 'EndMarketRewards', 'AdvanceTime',
];
