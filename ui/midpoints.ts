// Midpoints of many tokens at once (POST /clob/midpoints, in batches of the CLOB's limit): token → midpoint
// as the CLOB writes it; a token without both sides is absent. An answer that is not 200 ends the read.

/** Most tokens in one POST /clob/midpoints (the CLOB's batch limit). */
const BATCH = 500;

export async function fetchMidpoints(tokens: readonly string[], into = new Map<string, string>()): Promise<Map<string, string>> {
  for (let i = 0; i < tokens.length; i += BATCH) {
    const res = await fetch('/clob/midpoints', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tokens.slice(i, i + BATCH).map((token_id) => ({ token_id }))) });
    if (!res.ok) return into;
    for (const [token, mid] of Object.entries((await res.json()) as Record<string, string>)) into.set(token, String(mid));
  }
  return into;
}
