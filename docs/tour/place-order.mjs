// The README tour's trader: a new wallet, funded with 100 USDC through the operator API, signs in with the
// official TypeScript client (@polymarket/clob-client-v2, unchanged: only its host points here), rests a bid
// and buys 5 USDC worth at the market, then prints what the exchange answered.
//
//   PMX_OPERATOR_TOKEN=<the service's --operator-token> node docs/tour/place-order.mjs <token id>
//
// PMX_URL overrides the service's address (default http://127.0.0.1:8080).

import { ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';

const base = process.env.PMX_URL ?? 'http://127.0.0.1:8080';
const operatorToken = process.env.PMX_OPERATOR_TOKEN;
const tokenID = process.argv[2];
if (operatorToken === undefined || tokenID === undefined) {
  console.error('usage: PMX_OPERATOR_TOKEN=<token> node docs/tour/place-order.mjs <token id>');
  process.exit(2);
}

const wallet = Wallet.createRandom();
// The official client signs with an ethers v5 style signer; an ethers v6 wallet needs this small adapter.
const signer = {
  _signTypedData: (domain, types, value) => {
    const { EIP712Domain: _unused, ...rest } = types;
    return wallet.signTypedData(domain, rest, value);
  },
  getAddress: async () => wallet.address,
};

const deposit = await fetch(`${base}/operator/deposit`, {
  method: 'POST',
  headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
  body: JSON.stringify({ address: wallet.address, amount: '100' }), // USDC
});
if (deposit.status !== 200) throw new Error(`deposit: ${deposit.status} ${await deposit.text()}`);

const host = `${base}/clob`;
const creds = await new ClobClient({ host, chain: 137, signer }).createOrDeriveApiKey();
const client = new ClobClient({ host, chain: 137, signer, creds, throwOnError: true });

const bid = await client.createAndPostOrder({ tokenID, price: 0.05, size: 10, side: Side.BUY }, undefined, OrderType.GTC);
console.log('resting bid:', JSON.stringify(bid));
const buy = await client.createAndPostMarketOrder({ tokenID, amount: 5, side: Side.BUY }, undefined, OrderType.FAK);
console.log('market buy: ', JSON.stringify(buy));
console.log('open orders:', (await client.getOpenOrders()).length, '| balance (USDC base units):', (await client.getBalanceAllowance({ asset_type: 'COLLATERAL' })).balance);
