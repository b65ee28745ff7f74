// What the market page's browser tests share: a fee-free demo market with a 0.01 tick in the running service,
// traders funded through the engine, and signed orders posted on its first outcome through the API.

import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import type { EngineHost } from '../../host/engineHost.js';
import { units } from '../engine/scenario.js';
import { Trader } from './tradingClient.js';

export interface UiMarket {
  readonly market: Market;
  /** A trader signed in, with `collateral` USDC and `split` full sets of the market. */
  funded(collateral: number, split?: number): Promise<Trader>;
  /** A signed order on the market's first outcome, posted through the API; throws unless it is accepted. */
  place(trader: Trader, side: 'BUY' | 'SELL', price: number, size: number, orderType?: 'GTC' | 'FAK'): Promise<void>;
}

export function uiMarket(baseUrl: string, host: EngineHost): UiMarket {
  const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5));
  if (market === undefined) throw new Error('the demo catalog needs an active market with tick 0.01');
  const token = market.tokenIds[0];
  return {
    market,
    async funded(collateral, split = 0) {
      const trader = new Trader(baseUrl, Wallet.createRandom() as unknown as Wallet, {});
      await trader.signIn();
      await host.submit({ type: 'Deposit', account: trader.account, amount: units(collateral) });
      if (split > 0) await host.submit({ type: 'Split', account: trader.account, conditionId: market.conditionId, amount: units(split) });
      return trader;
    },
    async place(trader, side, price, size, orderType = 'GTC') {
      const shares = units(size);
      const cash = Math.round(price * size * 1_000_000);
      const terms = side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId: token } : { side, makerAmount: shares, takerAmount: cash, tokenId: token };
      const res = await trader.postOrder(await trader.signOrder(terms), orderType);
      if (res.status !== 200) throw new Error(`order refused: ${res.status} ${res.text}`);
    },
  };
}
