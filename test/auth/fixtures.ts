// Shared fixtures of the auth tests: the upstream test key and vectors, and an ethers v6 wallet dressed as
// the signer the official clob-client-v2 expects (its ethers path calls `_signTypedData`, the v5 name).

import { Wallet } from 'ethers';
import type { OrderDomainConfig } from '../../auth/index.js';

/** Anvil / Hardhat account 0: the key of every upstream vector (upstream-conventions §1.1, §2.1). */
export const TEST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const TEST_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export const DOMAINS: OrderDomainConfig = {
  chainId: 137,
  exchangeAddress: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeAddress: '0xe2222d279d744050d28e00520010520000310F59',
};

export const ZERO32 = '0x' + '00'.repeat(32);

/** The wire order of the upstream vector (§2.1 values, §2.3 shape). */
export const VECTOR_ORDER = {
  salt: 479249096354,
  maker: TEST_ADDRESS,
  signer: TEST_ADDRESS,
  tokenId: '1234',
  makerAmount: '50000000',
  takerAmount: '100000000',
  side: 'BUY',
  signatureType: 0,
  timestamp: '1710000000000',
  expiration: '0',
  metadata: ZERO32,
  builder: ZERO32,
  signature: '0x0247fdf6b4fd60944cdde6aee4dc8106176352480db802df31690c0a9438235c158b279108f3fcedb4a51080b6fef2b7168ea2dfc5be6347aab58818ae4e9bce1b',
};
export const VECTOR_HASH = '0x8c15548d83608d34832e3ef1cb06e1d822a7b8e2ac381a5f0d11c4dcdcfa3648';

type Types = Record<string, Array<{ name: string; type: string }>>;

export interface ClientSigner {
  _signTypedData(domain: Record<string, unknown>, types: Types, value: Record<string, unknown>): Promise<string>;
  getAddress(): Promise<string>;
}

export function clientSigner(wallet: Pick<Wallet, 'address' | 'signTypedData'>): ClientSigner {
  return {
    _signTypedData: (domain, types, value) => {
      const { EIP712Domain: _drop, ...rest } = types;
      return wallet.signTypedData(domain, rest, value);
    },
    getAddress: async () => wallet.address,
  };
}
