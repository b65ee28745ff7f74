// A trader for end-to-end tests, speaking to the service over HTTP the way the public SDKs do: L1 headers
// signed with the wallet (ClobAuth), L2 HMAC headers over timestamp + METHOD + path + body, and V2 orders
// signed as EIP-712 typed data by ethers. Header names use `_` (POLY_ADDRESS, ...) unless `headerStyle` is
// 'hyphen'.

import { Wallet, getAddress } from 'ethers';
import { CLOB_AUTH_MESSAGE, CLOB_AUTH_TYPES, ORDER_TYPES, ZERO_BYTES32, orderDomain, signL2, type OrderDomainConfig } from '../../auth/index.js';
import type { Engine } from '../../engine/index.js';
import { DOMAINS } from '../auth/fixtures.js';

/** The service's default chain and exchanges (the public CLOB's on Polygon). */
export const TEST_DOMAINS: OrderDomainConfig = DOMAINS;
export { ZERO_BYTES32 };

/** An account's balances (collateral and tokens) as comparable text, for "nothing moved" checks. */
export function balancesText(engine: Engine, account: string): string {
  return JSON.stringify(engine.balances(account), (_k, v: unknown) => (v instanceof Map ? [...v] : v));
}

export interface Credentials {
  apiKey: string;
  secret: string;
  passphrase: string;
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

export interface OrderTerms {
  tokenId: string;
  side: 'BUY' | 'SELL';
  /** Base units (6 decimals). */
  makerAmount: bigint | number;
  takerAmount: bigint | number;
  negRisk?: boolean;
  maker?: string;
  signatureType?: 0 | 1 | 2;
  /** ms; default now. */
  timestamp?: number;
  expiration?: number;
  salt?: number;
  builder?: string;
}

export type WireOrder = Record<string, string | number>;

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text body
  }
  return { status: res.status, body, text };
}

export class Trader {
  creds: Credentials | undefined;
  private salt = 1;

  constructor(
    readonly baseUrl: string,
    readonly wallet: Wallet = Wallet.createRandom() as unknown as Wallet,
    readonly options: { chainId?: number; domains?: OrderDomainConfig; headerStyle?: 'underscore' | 'hyphen'; clock?: () => number } = {},
  ) {}

  get address(): string {
    return this.wallet.address;
  }

  get account(): string {
    return this.wallet.address.toLowerCase();
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  private name(suffix: string): string {
    return this.options.headerStyle === 'hyphen' ? `POLY-${suffix.replace(/_/g, '-')}` : `POLY_${suffix}`;
  }

  async l1Headers(nonce = 0, timestampSec = Math.floor(this.now() / 1000)): Promise<Record<string, string>> {
    const timestamp = String(timestampSec);
    const signature = await this.wallet.signTypedData({ name: 'ClobAuthDomain', version: '1', chainId: this.options.chainId ?? 137 }, CLOB_AUTH_TYPES, {
      address: this.wallet.address, timestamp, nonce, message: CLOB_AUTH_MESSAGE,
    });
    return { [this.name('ADDRESS')]: this.wallet.address, [this.name('SIGNATURE')]: signature, [this.name('TIMESTAMP')]: timestamp, [this.name('NONCE')]: String(nonce) };
  }

  l2Headers(method: string, path: string, body = '', creds = this.requireCreds(), timestampSec = Math.floor(this.now() / 1000)): Record<string, string> {
    const timestamp = String(timestampSec);
    return {
      [this.name('ADDRESS')]: this.wallet.address,
      [this.name('API_KEY')]: creds.apiKey,
      [this.name('PASSPHRASE')]: creds.passphrase,
      [this.name('TIMESTAMP')]: timestamp,
      [this.name('SIGNATURE')]: signL2(creds.secret, timestamp, method, path, body === '' ? undefined : body),
    };
  }

  requireCreds(): Credentials {
    if (this.creds === undefined) throw new Error('no API key yet: call signIn()');
    return this.creds;
  }

  /** POST /auth/api-key, then GET /auth/derive-api-key if the slot is taken (the SDK's createOrDeriveApiKey). */
  async signIn(nonce = 0): Promise<Credentials> {
    let res = await this.request('POST', '/auth/api-key', { headers: await this.l1Headers(nonce) });
    if (res.status !== 200) res = await this.request('GET', '/auth/derive-api-key', { headers: await this.l1Headers(nonce) });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
    this.creds = res.body as Credentials;
    return this.creds;
  }

  /** A raw request to the CLOB surface (`/clob` + path). */
  async request(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}/clob${path}`, { method, headers, body: init.body });
    return answer(res);
  }

  /** An L2-authenticated request; `query` is appended unsigned, as the SDKs do. */
  async l2(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, query = ''): Promise<Answer> {
    const text = body === undefined ? '' : JSON.stringify(body);
    return this.request(method, path + query, { headers: this.l2Headers(method, path, text), body: body === undefined ? undefined : text });
  }

  /** A V2 order signed by this wallet, in the wire form of the official client. */
  async signOrder(terms: OrderTerms): Promise<WireOrder> {
    const domains = this.options.domains ?? TEST_DOMAINS;
    const message = {
      salt: BigInt(terms.salt ?? this.salt++),
      maker: getAddress(terms.maker ?? this.wallet.address),
      signer: this.wallet.address,
      tokenId: BigInt(terms.tokenId),
      makerAmount: BigInt(terms.makerAmount),
      takerAmount: BigInt(terms.takerAmount),
      side: terms.side === 'BUY' ? 0 : 1,
      signatureType: terms.signatureType ?? 0,
      timestamp: BigInt(terms.timestamp ?? this.now()),
      metadata: ZERO_BYTES32,
      builder: terms.builder ?? ZERO_BYTES32,
    };
    const signature = await this.wallet.signTypedData(orderDomain(domains, terms.negRisk ?? false), ORDER_TYPES, message);
    return {
      salt: Number(message.salt),
      maker: message.maker,
      signer: message.signer,
      tokenId: terms.tokenId,
      makerAmount: message.makerAmount.toString(),
      takerAmount: message.takerAmount.toString(),
      side: terms.side,
      signatureType: message.signatureType,
      timestamp: message.timestamp.toString(),
      expiration: String(terms.expiration ?? 0),
      metadata: ZERO_BYTES32,
      builder: message.builder,
      signature,
    };
  }

  /** POST /order with the body the official client sends. */
  async postOrder(order: WireOrder, orderType: 'GTC' | 'GTD' | 'FOK' | 'FAK' = 'GTC', postOnly = false): Promise<Answer> {
    return this.l2('POST', '/order', { order, owner: this.requireCreds().apiKey, orderType, ...(postOnly ? { postOnly } : {}) });
  }
}
