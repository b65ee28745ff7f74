// The analyst's side of `BENCH_ANALYST=N npm run bench:orders`: N loops, each sending heavy queries over
// `fills` to the service's ClickHouse HTTP interface back to back (a new one as soon as the last answered),
// for as long as the timed window lasts. Two queries alternate: a scan that groups every fill by the pair
// of accounts, and a self-join of fills on maker = taker (quadratic in the fills per account). The service's
// analyst limits apply as configured (by default one query runs, the others wait their turn).

export interface AnalystLoadResult {
  readonly loops: number;
  readonly queries: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly meanMs: number;
  readonly maxMs: number;
}

const QUERIES = [
  'SELECT maker_account, taker_account, count() AS n, sum(size) AS volume, avg(price) AS avg_price, uniqExact(fill_id) AS fills FROM fills GROUP BY maker_account, taker_account ORDER BY n DESC LIMIT 20',
  'SELECT count() AS pairs, sum(a.size * b.size) % 1000003 AS checksum FROM fills AS a INNER JOIN fills AS b ON a.maker_account = b.taker_account',
];

export function startAnalystLoad(port: number, password: string, loops: number): { stop(): Promise<AnalystLoadResult> } {
  let running = true;
  let queries = 0;
  let errors = 0;
  let firstError: string | undefined;
  let totalMs = 0;
  let maxMs = 0;
  const headers = { 'X-ClickHouse-User': 'analyst', 'X-ClickHouse-Key': password };
  const loop = async (index: number): Promise<void> => {
    for (let i = index; running; i++) {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: QUERIES[i % QUERIES.length], headers });
      const body = await res.text();
      const ms = performance.now() - started;
      queries += 1;
      totalMs += ms;
      maxMs = Math.max(maxMs, ms);
      if (res.status !== 200) {
        errors += 1;
        firstError ??= body.trim();
      }
    }
  };
  const all = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  return {
    stop: async () => {
      running = false;
      await all;
      return { loops, queries, errors, firstError, meanMs: Number((totalMs / Math.max(1, queries)).toFixed(1)), maxMs: Number(maxMs.toFixed(1)) };
    },
  };
}
