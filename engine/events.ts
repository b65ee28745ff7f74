// Events: the closed, versioned set of facts the engine emits, in the past tense. Every event carries the
// schema version, a global sequence number (1, 2, 3, ... with no gaps) and the engine time it happened at.
// Amounts and prices are integers in the units of units.ts.

import type { MarketParams, OrderType, Outcome, Side, CommandType } from './commands.js';
import type { RejectCode } from './rejectReasons.js';
import type { AccessKeyKind } from './accessKeyTable.js';

export const EVENT_VERSION = 1;

interface EventBase {
  readonly v: typeof EVENT_VERSION;
  readonly seq: number;
  readonly time: number;
}

export type MarketStatus = 'active' | 'paused' | 'resolved';

export interface MarketListed extends EventBase, MarketParams {
  readonly type: 'MarketListed';
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  /** The neg-risk event the market joined and its question index; absent for a market on its own. */
  readonly negRiskMarketId?: string;
  readonly questionIndex?: number;
}

export interface MarketUpdated extends EventBase, MarketParams {
  readonly type: 'MarketUpdated';
  readonly conditionId: string;
  /** The parameters before the change (WebSocket tick_size_change needs the old tick). */
  readonly previous: MarketParams;
}

export interface MarketStatusChanged extends EventBase {
  readonly type: 'MarketStatusChanged';
  readonly conditionId: string;
  readonly from: MarketStatus;
  readonly to: MarketStatus;
}

export interface MarketResolved extends EventBase {
  readonly type: 'MarketResolved';
  readonly conditionId: string;
  readonly winningOutcome: Outcome;
  readonly winningTokenId: string;
}

export interface CollateralDeposited extends EventBase {
  readonly type: 'CollateralDeposited';
  readonly account: string;
  readonly amount: number;
}

export interface CollateralWithdrawn extends EventBase {
  readonly type: 'CollateralWithdrawn';
  readonly account: string;
  readonly amount: number;
}

export interface OrderAccepted extends EventBase {
  readonly type: 'OrderAccepted';
  readonly orderId: string;
  readonly account: string;
  readonly owner: string;
  readonly conditionId: string;
  readonly tokenId: string;
  readonly outcome: Outcome;
  readonly side: Side;
  /** Limit price in the order's own token (for FOK/FAK the worst price its amounts allow, on the tick). */
  readonly price: number;
  /** Token quantity the order may fill (whole lots). */
  readonly size: number;
  readonly makerAmount: number;
  readonly takerAmount: number;
  readonly orderType: OrderType;
  readonly postOnly: boolean;
  readonly expiration: number;
  /** The signed order's builder code, when it has one. */
  readonly builder?: string;
}

export interface OrderRejected extends EventBase {
  readonly type: 'OrderRejected';
  readonly orderId: string;
  readonly account: string;
  readonly code: RejectCode;
  readonly message: string;
}

export type MatchKind = 'normal' | 'mint' | 'merge';

/** One side of a fill. BUY sides pay `amount` collateral and a fee in tokens; SELL sides receive `amount` and pay a fee in collateral. */
export interface FillSide {
  readonly orderId: string;
  readonly account: string;
  readonly owner: string;
  readonly tokenId: string;
  readonly outcome: Outcome;
  readonly side: Side;
  /** Price in this side's own token. */
  readonly price: number;
  /** Collateral this side paid (BUY) or received before fees (SELL). */
  readonly amount: number;
  /** Fee charged: tokens for a BUY, collateral for a SELL. */
  readonly fee: number;
  /** Fee rate applied, in basis points. */
  readonly feeBps: number;
  /** Quantity of the order still open after this fill. */
  readonly remaining: number;
}

export interface TradeExecuted extends EventBase {
  readonly type: 'TradeExecuted';
  /** Unique id of the fill, derived from its sequence number. */
  readonly tradeId: string;
  readonly conditionId: string;
  readonly kind: MatchKind;
  /** Tokens that changed hands (normal), were minted (mint) or merged (merge). */
  readonly size: number;
  /** Trade price in outcome 0's terms: the resting order's book price. */
  readonly price: number;
  readonly taker: FillSide;
  readonly maker: FillSide;
}

/** 'heartbeat': the account's heartbeat session expired (engine/heartbeats.ts). */
export type CancelReason = 'user' | 'market_resolved' | 'unfilled' | 'heartbeat';

export interface OrderCancelled extends EventBase {
  readonly type: 'OrderCancelled';
  readonly orderId: string;
  readonly account: string;
  readonly conditionId: string;
  readonly tokenId: string;
  /** Open quantity released. */
  readonly remaining: number;
  readonly reason: CancelReason;
}

export interface OrderExpired extends EventBase {
  readonly type: 'OrderExpired';
  readonly orderId: string;
  readonly account: string;
  readonly conditionId: string;
  readonly tokenId: string;
  readonly remaining: number;
}

export interface CancelRejected extends EventBase {
  readonly type: 'CancelRejected';
  readonly orderId: string;
  readonly account: string;
  readonly code: RejectCode;
  readonly message: string;
}

export interface CommandRejected extends EventBase {
  readonly type: 'CommandRejected';
  readonly command: CommandType | 'unknown';
  readonly account: string;
  readonly conditionId: string;
  readonly code: RejectCode;
  readonly message: string;
}

export interface PositionSplit extends EventBase {
  readonly type: 'PositionSplit';
  readonly account: string;
  readonly conditionId: string;
  readonly amount: number;
}

export interface PositionsMerged extends EventBase {
  readonly type: 'PositionsMerged';
  readonly account: string;
  readonly conditionId: string;
  readonly amount: number;
}

export interface PositionRedeemed extends EventBase {
  readonly type: 'PositionRedeemed';
  readonly account: string;
  readonly conditionId: string;
  readonly winningOutcome: Outcome;
  /** Collateral paid out: one unit per winning token. */
  readonly payout: number;
  /** Tokens burned, outcome 0 then outcome 1. */
  readonly burned: readonly [number, number];
}

/** A listed market became question `questionIndex` of the neg-risk event `negRiskMarketId` (JoinNegRiskEvent). */
export interface MarketJoinedNegRiskEvent extends EventBase {
  readonly type: 'MarketJoinedNegRiskEvent';
  readonly conditionId: string;
  readonly negRiskMarketId: string;
  readonly questionIndex: number;
}

/**
 * ConvertPositions applied: `account` gave `amount` of each token of `noTokenIds` (the NO tokens of the
 * questions in `indexSet`, by question index) and received `amount` of each token of `yesTokenIds` (the YES
 * tokens of the event's other questions) and `payout` = (k − 1) × `amount` collateral, k = noTokenIds.length.
 */
export interface PositionsConverted extends EventBase {
  readonly type: 'PositionsConverted';
  readonly account: string;
  readonly negRiskMarketId: string;
  /** As the command gave it: a decimal uint256, bit i naming question i. */
  readonly indexSet: string;
  readonly amount: number;
  readonly payout: number;
  /** The questions named (whose NO was given): condition ids and NO token ids, by question index. */
  readonly noConditionIds: readonly string[];
  readonly noTokenIds: readonly string[];
  /** The event's other questions (whose YES was received): condition ids and YES token ids, by question index. */
  readonly yesConditionIds: readonly string[];
  readonly yesTokenIds: readonly string[];
}

/** `address` now owns `apiKey`, the key of its (address, nonce). No secret is ever in an event. */
export interface ApiKeyCreated extends EventBase {
  readonly type: 'ApiKeyCreated';
  readonly address: string;
  readonly nonce: string;
  readonly apiKey: string;
}

export interface ApiKeyDeleted extends EventBase {
  readonly type: 'ApiKeyDeleted';
  readonly address: string;
  readonly nonce: string;
  readonly apiKey: string;
}

/** `signer` may now sign orders funded by `maker` (signature types 1 and 2). */
export interface SignerAuthorized extends EventBase {
  readonly type: 'SignerAuthorized';
  readonly maker: string;
  readonly signer: string;
}

export interface SignerRevoked extends EventBase {
  readonly type: 'SignerRevoked';
  readonly maker: string;
  readonly signer: string;
}

/** `account`'s heartbeat session runs until `deadline` (engine time, ms); the next heartbeat must carry `heartbeatId`. */
export interface HeartbeatAccepted extends EventBase {
  readonly type: 'HeartbeatAccepted';
  readonly account: string;
  readonly heartbeatId: string;
  readonly deadline: number;
}

/** No heartbeat came by `deadline`: the session ended; OrderCancelled (reason 'heartbeat') follow for its open orders. */
export interface HeartbeatExpired extends EventBase {
  readonly type: 'HeartbeatExpired';
  readonly account: string;
  readonly heartbeatId: string;
  readonly deadline: number;
}

/** `address` now holds the read-only or builder API key `key` (created at the event's time). No secret. */
export interface AccessKeyCreated extends EventBase {
  readonly type: 'AccessKeyCreated';
  readonly kind: AccessKeyKind;
  readonly address: string;
  readonly key: string;
}

/** `address`'s key `key` was revoked: it no longer authenticates anything. */
export interface AccessKeyRevoked extends EventBase {
  readonly type: 'AccessKeyRevoked';
  readonly kind: AccessKeyKind;
  readonly address: string;
  readonly key: string;
}

/**
 * `account` dropped its notifications `ids` (DropNotifications; projections/notifications/ removes them). The
 * ids as asked, without repeats, in the order given; ids it does not hold are no-ops there.
 */
export interface NotificationsDropped extends EventBase {
  readonly type: 'NotificationsDropped';
  readonly account: string;
  readonly ids: readonly number[];
}

/** A market's rewards program set or changed (SetMarketRewards); in force from the next sample. */
export interface MarketRewardsSet extends EventBase {
  readonly type: 'MarketRewardsSet';
  readonly conditionId: string;
  readonly dailyRate: number;
  readonly maxSpread: number;
  readonly minSize: number;
}

/** A market's rewards program ended: by the operator, or because the market resolved (noticed at a sample). */
export interface MarketRewardsEnded extends EventBase {
  readonly type: 'MarketRewardsEnded';
  readonly conditionId: string;
  readonly reason: 'operator' | 'resolved';
}

/**
 * `samples` samples of a rewarded market (one a minute from `at`, identical: nothing changed the book between
 * them) in which at least one maker scored. `midpoint`: the size-cutoff-adjusted midpoint (micro-units).
 * `makers`: [account, Q_one, Q_two, Q_min, share] sorted by account, scores in base units of score, `share`
 * the maker's normalised score of one sample (10^12 = the whole sample).
 */
export interface RewardsSampled extends EventBase {
  readonly type: 'RewardsSampled';
  readonly conditionId: string;
  readonly at: number;
  readonly samples: number;
  readonly midpoint: number;
  readonly makers: readonly (readonly [string, number, number, number, number])[];
}

/**
 * A market's pool for a UTC day (`day`, YYYY-MM-DD), split by the makers' summed scores: `earnings` is every
 * maker's amount [account, base units] sorted by account, `paid` what was credited (RewardPaid events follow),
 * `withheld` what was not (amounts under the $1 minimum). paid + withheld = pool.
 */
export interface RewardsDistributed extends EventBase {
  readonly type: 'RewardsDistributed';
  readonly conditionId: string;
  readonly day: string;
  readonly pool: number;
  readonly samples: number;
  readonly paid: number;
  readonly withheld: number;
  readonly earnings: readonly (readonly [string, number])[];
}

/** `amount` collateral credited to `account`: its liquidity reward in `conditionId` for the UTC day `day`. */
export interface RewardPaid extends EventBase {
  readonly type: 'RewardPaid';
  readonly account: string;
  readonly conditionId: string;
  readonly day: string;
  readonly amount: number;
}

export type EngineEvent =
  | MarketListed
  | MarketUpdated
  | MarketStatusChanged
  | MarketResolved
  | CollateralDeposited
  | CollateralWithdrawn
  | OrderAccepted
  | OrderRejected
  | TradeExecuted
  | OrderCancelled
  | OrderExpired
  | CancelRejected
  | CommandRejected
  | PositionSplit
  | PositionsMerged
  | PositionRedeemed
  | PositionsConverted
  | MarketJoinedNegRiskEvent
  | ApiKeyCreated
  | ApiKeyDeleted
  | SignerAuthorized
  | SignerRevoked
  | AccessKeyCreated
  | AccessKeyRevoked
  | HeartbeatAccepted
  | HeartbeatExpired
  | NotificationsDropped
  | MarketRewardsSet
  | MarketRewardsEnded
  | RewardsSampled
  | RewardsDistributed
  | RewardPaid;

export type EventType = EngineEvent['type'];

/** Distributes Omit over a union so each member keeps its own fields. */
export type WithoutBase<E> = E extends EngineEvent ? Omit<E, 'v' | 'seq' | 'time'> : never;
export type EventBody = WithoutBase<EngineEvent>;

/** Trade ids are UUID-shaped and derived from the fill's sequence number, so replay reproduces them. */
export function tradeIdFor(seq: number): string {
  const hex = seq.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

const TRADE_ID_PREFIX = '00000000-0000-4000-8000-';
/** The prefix with the zero padding for a hex number of each length (index = length, up to 12). */
const TRADE_ID_PADDED: readonly string[] = Array.from({ length: 13 }, (_, n) => TRADE_ID_PREFIX + '0'.repeat(12 - n));

/** Two hex digits of each byte value. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * tradeIdFor for the fills of one engine, equal to it for every seq: the hex of seq / 256 with its padding
 * is kept from the previous call (fills come in sequence order), so a fill appends two digits from a table
 * instead of formatting a number.
 */
export class TradeIds {
  private high = -1;
  private prefix = '';

  idFor(seq: number): string {
    const high = Math.floor(seq / 256);
    if (high !== this.high) {
      const hex = high === 0 ? '' : high.toString(16);
      this.prefix = (TRADE_ID_PADDED[hex.length + 2] ?? TRADE_ID_PREFIX) + hex;
      this.high = high;
    }
    return this.prefix + (HEX_BYTE[seq - high * 256] as string);
  }
}
