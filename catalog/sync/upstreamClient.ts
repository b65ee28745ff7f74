// HTTP access to a Gamma-shaped upstream: one GET of one page, with retries and backoff.
//
// Retriable (with backoff): network errors, timeouts, unreadable bodies, 408, 425, 429 and 5xx. A 429 or 503
// with Retry-After waits at least that long (capped at maxDelayMs). Any other status is not retried.
// Backoff: baseDelayMs × 2^(attempt−1), capped at maxDelayMs, with ±20% jitter.
// A page body is a JSON array, or an object holding the array under data, results or the resource's name
// (the keyset form `{"markets":[…],"next_cursor":…}`); anything else is an error (not retriable).

export interface RetryPolicy {
  /** Tries per page, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Per request. */
  readonly timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 30_000 };

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    message: string,
    readonly retriable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: UpstreamError;
}

export interface UpstreamClientOptions {
  readonly baseUrl: string;
  readonly retry?: Partial<RetryPolicy>;
  readonly signal?: AbortSignal;
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Injected in tests to skip real waiting. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const RETRIABLE_STATUS = new Set([408, 425, 429]);

export function pageUrl(baseUrl: string, resource: string, params: Readonly<Record<string, string>>): string {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return `${base}/${resource}?${new URLSearchParams(params).toString()}`;
}

/** The items of a page body, or undefined when the body holds no array. */
export function itemsOfBody(body: unknown, resource: string): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const holder = body as Record<string, unknown>;
  for (const key of [resource, 'data', 'results']) {
    const value = holder[key];
    if (Array.isArray(value)) return value;
  }
  return undefined;
}

async function fetchOnce(url: string, resource: string, policy: RetryPolicy, signal: AbortSignal | undefined): Promise<unknown[]> {
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new UpstreamError(`GET ${url} failed: ${(error as Error).message}`, true);
  }
  if (!response.ok) {
    await response.body?.cancel();
    const retryAfter = Number(response.headers.get('retry-after'));
    const retriable = RETRIABLE_STATUS.has(response.status) || response.status >= 500;
    throw new UpstreamError(`GET ${url} answered ${response.status}`, retriable, response.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new UpstreamError(`GET ${url}: unreadable JSON (${(error as Error).message})`, true, response.status);
  }
  const items = itemsOfBody(body, resource);
  if (items === undefined) throw new UpstreamError(`GET ${url}: the body holds no array of ${resource}`, false, response.status);
  return items;
}

export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential * (0.8 + 0.4 * Math.random());
  return Math.round(Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0)));
}

/** One page of a resource; retries as described above, then throws the last UpstreamError. */
export async function fetchPage(options: UpstreamClientOptions, resource: string, params: Readonly<Record<string, string>>): Promise<unknown[]> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const url = pageUrl(options.baseUrl, resource, params);
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchOnce(url, resource, policy, options.signal);
    } catch (error) {
      if (!(error instanceof UpstreamError) || !error.retriable || attempt >= policy.attempts) throw error;
      const delayMs = backoffDelay(policy, attempt, error.retryAfterMs);
      options.onRetry?.({ attempt, delayMs, error });
      await wait(delayMs, options.signal);
    }
  }
}
