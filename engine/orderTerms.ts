// From a signed order's amounts to the terms the engine trades on: quantity in whole lots and a limit
// price on the market's tick, in the order's own token. Pure functions; a refusal names a catalogue code.
//
// Limit orders (GTC, GTD) must be exact: BUY makerAmount = size × price, SELL takerAmount = size × price,
// with size in whole lots (2 decimals of a share), cash with at most tick decimals + 2, and the price on
// the tick within [tick, 1 - tick].
// Marketable orders (FOK, FAK) state a budget, not an exact price (clients derive takerAmount from a USDC
// amount): BUY may fill floor-to-lot(takerAmount) tokens at prices up to makerAmount / takerAmount rounded
// down to the tick; SELL may fill makerAmount tokens at prices down to takerAmount / makerAmount rounded up
// to the tick. The buyer keeps any price improvement.

import type { MarketParams, PlaceOrder } from './commands.js';
import type { RejectCode } from './rejectReasons.js';
import { LOT, MIN_TICK, PRICE_ONE, cost, floorTo, formatUnits, hasAtMostDecimals, mulDivCeil, mulDivFloor, tickDecimals } from './units.js';

export interface TermsRefusal {
  readonly code: RejectCode;
  readonly values: Readonly<Record<string, string | number>>;
}

export function isMarketable(orderType: PlaceOrder['orderType']): boolean {
  return orderType === 'FOK' || orderType === 'FAK';
}

/** Shows a ratio of base-unit amounts as a price for messages only (the one place a float is used). */
function ratioText(numerator: number, denominator: number): string {
  return String(Number((numerator / denominator).toFixed(6)));
}

/**
 * value % step === 0 for a non-negative integer `value` and a positive integer `step` below 2^31. A
 * remainder of a rounded float is a call into the C library; below 2^31 it is done in 32-bit integers.
 */
function isMultiple(value: number, step: number): boolean {
  return value <= 0x7fffffff ? (value | 0) % step === 0 : value % step === 0;
}

function tickRefusal(id: string, price: string, tick: number): TermsRefusal {
  return { code: 'TICK_SIZE', values: { id, price, tick: formatUnits(tick) } };
}

/**
 * Token quantity an order may fill: a limit BUY's takerAmount, a marketable BUY's takerAmount floored to
 * whole lots, a SELL's makerAmount. Only meaningful once orderPrice accepted the order.
 */
export function orderQty(cmd: PlaceOrder): number {
  if (cmd.side === 'SELL') return cmd.makerAmount;
  return isMarketable(cmd.orderType) ? floorTo(cmd.takerAmount, LOT) : cmd.takerAmount;
}

/**
 * The order's limit price in its own token (see the header), or why it is refused. A plain number when
 * accepted, so the order path allocates nothing here; the quantity is orderQty(cmd).
 */
export function orderPrice(cmd: PlaceOrder, params: MarketParams): number | TermsRefusal {
  return isMarketable(cmd.orderType) ? marketablePrice(cmd, params) : limitPrice(cmd, params);
}

function limitPrice(cmd: PlaceOrder, params: MarketParams): number | TermsRefusal {
  const tick = params.tickSize;
  const cashDecimals = Math.min(6, tickDecimals(tick) + 2);
  const buy = cmd.side === 'BUY';
  const qty = buy ? cmd.takerAmount : cmd.makerAmount;
  const cash = buy ? cmd.makerAmount : cmd.takerAmount;
  if (qty % LOT !== 0 || !hasAtMostDecimals(cash, cashDecimals)) {
    return {
      code: 'INVALID_AMOUNTS',
      values: buy ? { kind: 'buy', maker: cashDecimals, taker: 2 } : { kind: 'sell', maker: 2, taker: cashDecimals },
    };
  }
  const candidate = Math.round((cash / qty) * PRICE_ONE);
  const exact = isMultiple(candidate, MIN_TICK) && cost(qty, candidate) === cash;
  if (!exact) return tickRefusal(cmd.orderId, ratioText(cash, qty), tick);
  if (!isMultiple(candidate, tick) || candidate < tick || candidate > PRICE_ONE - tick) {
    return tickRefusal(cmd.orderId, formatUnits(candidate), tick);
  }
  if (qty < params.minSize) {
    return { code: 'MIN_SIZE', values: { id: cmd.orderId, size: formatUnits(qty), min: formatUnits(params.minSize) } };
  }
  return candidate;
}

function marketablePrice(cmd: PlaceOrder, params: MarketParams): number | TermsRefusal {
  const tick = params.tickSize;
  const cashDecimals = Math.min(6, tickDecimals(tick) + 2);
  if (cmd.side === 'BUY') {
    if (!hasAtMostDecimals(cmd.makerAmount, cashDecimals)) {
      return { code: 'INVALID_AMOUNTS', values: { kind: 'market buy', maker: cashDecimals, taker: 6 } };
    }
    const qty = floorTo(cmd.takerAmount, LOT);
    if (qty === 0) return { code: 'MIN_SIZE', values: { id: cmd.orderId, size: formatUnits(cmd.takerAmount), min: formatUnits(LOT) } };
    // floor(maker / taker) in price units, exact (maker × 1e6 can pass 2^53; mulDivFloor handles it).
    const ratio = mulDivFloor(cmd.makerAmount, PRICE_ONE, cmd.takerAmount);
    const price = Math.min(floorTo(ratio, tick), PRICE_ONE - tick);
    if (price < tick) return tickRefusal(cmd.orderId, ratioText(cmd.makerAmount, cmd.takerAmount), tick);
    return price;
  }
  if (cmd.makerAmount % LOT !== 0) {
    return { code: 'INVALID_AMOUNTS', values: { kind: 'market sell', maker: 2, taker: 6 } };
  }
  const qty = cmd.makerAmount;
  const ratio = mulDivCeil(cmd.takerAmount, PRICE_ONE, qty);
  const roundedUp = ratio % tick === 0 ? ratio : floorTo(ratio, tick) + tick;
  const price = Math.max(roundedUp, tick);
  if (price > PRICE_ONE - tick) return tickRefusal(cmd.orderId, ratioText(cmd.takerAmount, qty), tick);
  return price;
}

/** Collateral (BUY) or tokens (SELL) an order must hold back for `qty` at its limit `price`. */
export function reservationFor(side: PlaceOrder['side'], qty: number, price: number): number {
  return side === 'BUY' ? cost(qty, price) : qty;
}
