// The freshness rule of L1 and L2 requests: the timestamp header is unix seconds (digits only), within
// `windowSec` of the server clock either way. Limits how long captured headers can be replayed; the public
// CLOB does not document its window, so it is a setting (authFreshnessSec).

const SECONDS = /^[0-9]{1,12}$/;

/** Why the timestamp is refused, or undefined when it is fresh. */
export function timestampProblem(text: string, nowSec: number, windowSec: number): string | undefined {
  if (!SECONDS.test(text)) return 'the timestamp must be unix seconds (digits only)';
  const skew = Number(text) - nowSec;
  if (Math.abs(skew) <= windowSec) return undefined;
  return `the timestamp is ${Math.abs(Math.round(skew))} s ${skew < 0 ? 'behind' : 'ahead of'} the server clock (allowed: ${windowSec} s either way; GET /time gives the server time)`;
}
