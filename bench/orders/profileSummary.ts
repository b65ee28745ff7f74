// Where the server's main thread spends its time, from a V8 CPU profile (.cpuprofile) of the orders bench
// window: every sample is given to one cost centre, the first rule below that matches any frame of its
// stack (specific leaf costs such as keccak or recovery first, whole components such as the engine or the
// HTTP glue after), so the centres add up to the sampled time. Also the heaviest functions by self time.
// Run alone: `node dist/bench/orders/profileSummary.js <file.cpuprofile> [orders]`.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
  /** Self samples by source line (1-based). */
  readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
}

const WAKE_CENTRE = 'waking another thread (Atomics.notify: signature workers, journal writer)';

/** The 1-based lines of a loaded script that call Atomics.notify (none for a script that cannot be read). */
function notifyLines(url: string, cache: Map<string, ReadonlySet<number>>): ReadonlySet<number> {
  let lines = cache.get(url);
  if (lines === undefined) {
    lines = new Set();
    if (url.startsWith('file://')) {
      try {
        const text = readFileSync(fileURLToPath(url), 'utf8').split('\n');
        lines = new Set(text.flatMap((line, i) => (line.includes('Atomics.notify(') ? [i + 1] : [])));
      } catch {
        // A script gone since the run: its time stays with its function.
      }
    }
    cache.set(url, lines);
  }
  return lines;
}

/** The share of a node's self time spent on lines that call Atomics.notify. */
function wakeShare(node: ProfileNode, cache: Map<string, ReadonlySet<number>>): number {
  const ticks = node.positionTicks ?? [];
  if (ticks.length === 0) return 0;
  const lines = notifyLines(node.callFrame.url, cache);
  if (lines.size === 0) return 0;
  let all = 0;
  let waking = 0;
  for (const t of ticks) {
    all += t.ticks;
    if (lines.has(t.line)) waking += t.ticks;
  }
  return all === 0 ? 0 : waking / all;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

type Rule = readonly [label: string, matches: (f: CallFrame) => boolean];

const inUrl = (...parts: string[]) => (f: CallFrame): boolean => parts.some((p) => f.url.includes(p));

/** In priority order: a sample goes to the first rule that matches any frame of its stack. */
const RULES: readonly Rule[] = [
  ['(idle)', (f) => f.functionName === '(idle)'],
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['(program: native, unattributed)', (f) => f.functionName === '(program)'],
  // The engine before the harness: the bench's server wraps engine.apply to time the rewards sampler, so every
  // engine stack also holds a harness frame.
  ['engine (engine/)', inUrl('/engine/')],
  ['(the bench harness: IPC, profiler)', inUrl('bench/orders/', 'bench/http/')],
  ['address checksum (ethers getAddress)', (f) => f.functionName === 'getAddress' && f.url.includes('ethers')],
  ['keccak (auth/keccak.ts)', inUrl('auth/keccak')],
  ['signature recovery (auth/recoverSigner.ts, libsecp256k1)', inUrl('auth/recoverSigner', 'secp256k1')],
  ['EIP-712 struct encoding (auth/orderTypedData.ts)', inUrl('auth/orderTypedData')],
  ['API key lookup: secrets re-derived per request (auth/credentials.ts)', inUrl('auth/credentials')],
  ['L2 check: headers, HMAC, passphrase (auth/l2Hmac.ts, auth/authHeaders.ts)', inUrl('auth/l2Hmac', 'auth/authHeaders')],
  ['parseOrderPayload (auth/orderPayload.ts)', inUrl('auth/orderPayload')],
  ['other auth/', inUrl('/auth/')],
  ['JSON.parse / JSON.stringify (any caller)', (f) => f.url === '' && (f.functionName === 'parse' || f.functionName === 'stringify')],
  ['fast-json-stringify (responses)', inUrl('fast-json-stringify')],
  ['trading routes (api/trading/)', inUrl('api/trading/')],
  // The consumers of the durable records (log/durableFollower.ts), before the journal's rule: the follower's
  // frame is in log/ and under it every consumer's.
  ['read model (projections/live/)', inUrl('/projections/live/')],
  ['projector + chDB (projections/, storage/)', inUrl('/projections/', '/storage/', 'chdb')],
  ['WebSocket publisher and channels (api/ws/)', inUrl('/api/ws/')],
  ['snapshot copy hand-over (host/snapshot*)', inUrl('/host/snapshot')],
  ['journal (log/)', inUrl('/log/')],
  ['engine host (host/)', inUrl('/host/')],
  ['catalog', inUrl('/catalog/')],
  ['server/ (metrics, service)', inUrl('/server/', 'prom-client')],
  ['header edge (api/http/headerEdge.ts, api/http/edge/)', inUrl('api/http/headerEdge', 'api/http/edge/')],
  ['HTTP server glue (api/http/, uWS)', inUrl('/api/', 'uWebSockets', 'uws')],
  ['node internals (net, streams, timers, promises)', (f) => f.url.startsWith('node:')],
  ['pino', inUrl('pino')],
];

function shortUrl(url: string): string {
  const at = url.search(/\/(api|auth|engine|host|log|projections|storage|server|catalog|node_modules)\//);
  return at >= 0 ? url.slice(at + 1) : url;
}

export function summariseProfile(file: string, orders: number, unit = 'order'): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }

  const centres = new Map<string, number>();
  const functions = new Map<string, number>();
  const sources = new Map<string, ReadonlySet<number>>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    total += us;
    const leaf = byId.get(id) as ProfileNode;
    if (leaf.callFrame.functionName === '(idle)') idle += us;
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push((byId.get(at) as ProfileNode).callFrame);
    const rule = RULES.find(([, matches]) => stack.some(matches));
    const label = rule?.[0] ?? 'other';
    const waking = us * wakeShare(leaf, sources);
    if (waking > 0) centres.set(WAKE_CENTRE, (centres.get(WAKE_CENTRE) ?? 0) + waking);
    centres.set(label, (centres.get(label) ?? 0) + us - waking);
    const f = leaf.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url === '' ? '(native)' : `${shortUrl(f.url)}:${f.lineNumber + 1}`}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }

  const busy = total - idle;
  const perOrder = (us: number): string => (orders > 0 ? `${(us / orders).toFixed(1)} us/${unit}` : '');
  const lines = [
    `  sampled ${(total / 1000).toFixed(0)} ms: busy ${(busy / 1000).toFixed(0)} ms (${((busy / total) * 100).toFixed(0)}%) = ${perOrder(busy)} on the main thread`,
    `  | cost centre | ms | us/${unit} | % of busy |`,
    '  |---|---|---|---|',
  ];
  for (const [label, us] of [...centres].sort((a, b) => b[1] - a[1])) {
    if (label === '(idle)') continue;
    lines.push(`  | ${label} | ${(us / 1000).toFixed(0)} | ${orders > 0 ? (us / orders).toFixed(1) : '-'} | ${((us / busy) * 100).toFixed(1)} |`);
  }
  lines.push('  heaviest functions by self time:');
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).filter(([n]) => !n.startsWith('(idle)')).slice(0, 25)) {
    lines.push(`    ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`);
  }
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: profileSummary <file.cpuprofile> [orders]');
  for (const line of summariseProfile(file, Number(process.argv[3] ?? 0))) console.log(line);
}
