// L2 headers made in the browser, as the official clients make them (upstream-conventions §1.3): an HMAC-SHA256
// of timestamp + METHOD + path + body, keyed with the API key's secret (url-safe base64), sent url-safe base64,
// with the address, key and passphrase. Web Crypto signs it; the secret never leaves the page (it is kept in
// sessionStorage, for this tab only, when the user connects a key).

export interface L2Key {
  readonly address: string;
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

const STORE = 'pmx-l2-key';

function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function urlSafeBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_');
}

/** The headers of an L2 request; `path` is the CLOB path as signed (without /clob and without the query). */
export async function l2Headers(key: L2Key, method: string, path: string, body = ''): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const material = await crypto.subtle.importKey('raw', bytesOfBase64(key.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = await crypto.subtle.sign('HMAC', material, new TextEncoder().encode(timestamp + method + path + body));
  return { 'POLY-ADDRESS': key.address, 'POLY-API-KEY': key.apiKey, 'POLY-PASSPHRASE': key.passphrase, 'POLY-TIMESTAMP': timestamp, 'POLY-SIGNATURE': urlSafeBase64(signature) };
}

/** An L2 request to the CLOB surface; `query` is appended unsigned, as the clients do. */
export async function l2Json<T>(key: L2Key, method: 'GET' | 'POST', path: string, query = '', body?: unknown): Promise<T> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = await l2Headers(key, method, path, text);
  const res = await fetch(`/clob${path}${query}`, { method, headers: { ...headers, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : text });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export function storedKey(): L2Key | undefined {
  try {
    const raw = sessionStorage.getItem(STORE);
    return raw === null ? undefined : (JSON.parse(raw) as L2Key);
  } catch {
    return undefined;
  }
}

export function storeKey(key: L2Key | undefined): void {
  if (key === undefined) sessionStorage.removeItem(STORE);
  else sessionStorage.setItem(STORE, JSON.stringify(key));
}
