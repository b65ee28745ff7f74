// Raw requests to ClickHouse's HTTP interface, as curl sends them.

export interface ChReply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export interface ChAsk {
  readonly user?: string;
  readonly password?: string;
  /** URL parameters: settings, param_*, database, default_format, query_id, ... */
  readonly url?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly method?: 'GET' | 'POST';
}

export async function chQuery(port: number, query: string, ask: ChAsk = {}): Promise<ChReply> {
  const url = new URL(`http://127.0.0.1:${port}/`);
  for (const [k, v] of Object.entries(ask.url ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...(ask.headers ?? {}) };
  if (ask.user !== undefined) {
    headers['X-ClickHouse-User'] = ask.user;
    headers['X-ClickHouse-Key'] = ask.password ?? '';
  }
  let body: string | undefined = query;
  if (ask.method === 'GET') {
    url.searchParams.set('query', query);
    body = undefined;
  }
  const res = await fetch(url, { method: ask.method ?? 'POST', body, headers });
  return { status: res.status, headers: res.headers, body: await res.text() };
}
