// What `npm run bench:soak` concludes from its minutes (bench/soak.ts): CPU and RSS from minute 5 on against
// minute 5, read three ways, and the same for CPU at minute 5's machine speed.
//
//   minute 5 against the last five minutes' mean   the README's figure, and `flat` (both within 10%)
//   every single minute after 5 against minute 5   the strictest: one minute's noise counts
//   minutes 5-9's mean against the last five's      the steadiest: a mean on each side, where minute 5 alone may be
//                                                   one of the run's high or low minutes
//
// At ~6% of a core a single minute moves by ±15% with the demo traders' random load, ClickHouse's merges and the
// main thread's full collections; and the VM's own speed drifts by 10-40% within an hour. Each minute's CPU times
// the speed probe's minute-5 CPU over that minute's (bench/speedProbe.ts) is a reading at minute 5's speed. The
// probe follows the machine's drift in direction (minute by minute it correlates with the service's CPU), but
// not in size: on the Intel Xeon it moved by more than the service did, so the adjusted figures tell a slower
// machine from a growing service, not by how much each moved.

/** The fields of a soak minute that the summary reads. */
export interface SoakMinute {
  readonly minute: number;
  /** CPU, % of one core, all the service's threads. */
  readonly cpuPct: number;
  readonly rssMb: number;
  /** Median CPU (ms) of the speed probe over the minute; NaN or 0 when none ran. */
  readonly probeMs: number;
  /** CPU % of one core of each ClickHouse thread name other than its merges. */
  readonly chOtherByName: Readonly<Record<string, number>>;
}

export interface SoakSummary {
  readonly fiveMinuteMeans: { from: number; to: number; cpuPct: number; cpuAtSpeed5Pct: number | null; rssMb: number }[];
  readonly cpuAt5: number | null;
  readonly rssAt5: number | null;
  /** Means of the last five minutes. */
  readonly cpuLast: number;
  readonly rssLast: number;
  /** The last five minutes' means against minute 5, in %. */
  readonly cpuDriftPct: number | null;
  readonly rssDriftPct: number | null;
  /** Both drifts within 10% either way (unadjusted CPU). */
  readonly flat: boolean;
  /** Every single minute after minute 5 against it: [lowest, highest], in %. */
  readonly cpuRangePct: [number, number] | null;
  readonly rssRangePct: [number, number] | null;
  /** Means of minutes 5-9, and the last five's drift from them, in %. */
  readonly cpuFrom5: number | null;
  readonly rssFrom5: number | null;
  readonly cpuDriftFrom5Pct: number | null;
  readonly rssDriftFrom5Pct: number | null;
  /** CPU at minute 5's machine speed: the last five's mean, its drift, the single minutes' range, minutes 5-9. */
  readonly cpuAdjLast: number | null;
  readonly cpuAdjDriftPct: number | null;
  readonly cpuAdjRangePct: [number, number] | null;
  readonly cpuAdjFrom5: number | null;
  readonly cpuAdjDriftFrom5Pct: number | null;
  /** The lines the bench prints. */
  readonly lines: string[];
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** (b - a) / a in %, one decimal; null without a base. */
function drift(a: number | null | undefined, b: number | null): number | null {
  return a === null || a === undefined || a === 0 || b === null ? null : round1(((b - a) / a) * 100);
}

function rangePct(base: number | null | undefined, xs: readonly number[]): [number, number] | null {
  if (base === null || base === undefined || base === 0 || xs.length === 0) return null;
  return [drift(base, Math.min(...xs)) ?? 0, drift(base, Math.max(...xs)) ?? 0];
}

const span = (r: [number, number] | null): string => (r === null ? '-' : `${r[0]}% to ${r[1]}%`);
const show = (x: number | null, unit = '%'): string => (x === null ? '-' : `${x}${unit}`);

export function summarize(perMinute: readonly SoakMinute[]): SoakSummary {
  const at5 = perMinute.find((m) => m.minute === 5);
  const tail = perMinute.slice(-5);
  const after5 = perMinute.filter((m) => m.minute > 5);
  const from5 = perMinute.filter((m) => m.minute >= 5 && m.minute <= 9);
  const cpuAt5 = at5?.cpuPct ?? null;
  const rssAt5 = at5?.rssMb ?? null;

  const cpuLast = round1(mean(tail.map((m) => m.cpuPct)));
  const rssLast = Math.round(mean(tail.map((m) => m.rssMb)));
  const cpuDriftPct = drift(cpuAt5, cpuLast);
  const rssDriftPct = drift(rssAt5, rssLast);
  const flat = cpuDriftPct !== null && rssDriftPct !== null && Math.abs(cpuDriftPct) <= 10 && Math.abs(rssDriftPct) <= 10;
  const cpuRangePct = rangePct(cpuAt5, after5.map((m) => m.cpuPct));
  const rssRangePct = rangePct(rssAt5, after5.map((m) => m.rssMb));
  const cpuFrom5 = from5.length === 5 ? round1(mean(from5.map((m) => m.cpuPct))) : null;
  const rssFrom5 = from5.length === 5 ? Math.round(mean(from5.map((m) => m.rssMb))) : null;
  const cpuDriftFrom5Pct = drift(cpuFrom5, cpuLast);
  const rssDriftFrom5Pct = drift(rssFrom5, rssLast);

  const probe5 = at5 !== undefined && at5.probeMs > 0 ? at5.probeMs : null;
  const atSpeed5 = (m: SoakMinute): number => (probe5 !== null && m.probeMs > 0 ? (m.cpuPct * probe5) / m.probeMs : Number.NaN);
  const adjMean = (rows: readonly SoakMinute[]): number | null => {
    const xs = rows.map(atSpeed5);
    return xs.length > 0 && xs.every(Number.isFinite) ? round1(mean(xs)) : null;
  };
  const cpuAdjLast = adjMean(tail);
  const cpuAdjDriftPct = drift(cpuAt5, cpuAdjLast);
  const cpuAdjRangePct = rangePct(cpuAt5, after5.map(atSpeed5).filter(Number.isFinite));
  const cpuAdjFrom5 = from5.length === 5 ? adjMean(from5) : null;
  const cpuAdjDriftFrom5Pct = drift(cpuAdjFrom5, cpuAdjLast);

  // The run in five-minute stretches (1-5, 6-10, ...): a trend shows across them.
  const fiveMinuteMeans: SoakSummary['fiveMinuteMeans'] = [];
  for (let from = 0; from < perMinute.length; from += 5) {
    const stretch = perMinute.slice(from, from + 5);
    fiveMinuteMeans.push({ from: from + 1, to: from + stretch.length, cpuPct: round1(mean(stretch.map((m) => m.cpuPct))), cpuAtSpeed5Pct: adjMean(stretch), rssMb: Math.round(mean(stretch.map((m) => m.rssMb))) });
  }

  // What grows, if anything, among ClickHouse's threads other than its merges: each name's mean share of a core
  // over minutes 6-10 (past start-up) against the last five minutes.
  const early = perMinute.slice(5, 10);
  const meanOf = (rows: readonly SoakMinute[], name: string): number => Math.round(mean(rows.map((m) => m.chOtherByName[name] ?? 0)) * 100) / 100;
  const chNames = [...new Set(perMinute.flatMap((m) => Object.keys(m.chOtherByName)))].sort((a, b) => meanOf(tail, b) - meanOf(tail, a));
  const probes = perMinute.map((m) => m.probeMs).filter((p) => p > 0);
  const n = perMinute.length;

  const lines = [
    `five-minute means: ${fiveMinuteMeans.map((f) => `${f.from}-${f.to} ${f.cpuPct}% ${f.rssMb} MB`).join(', ')}`,
    `minute 5: CPU ${show(cpuAt5)}, RSS ${show(rssAt5, ' MB')}; last five minutes: CPU ${cpuLast}%, RSS ${rssLast} MB; drift CPU ${show(cpuDriftPct)}, RSS ${show(rssDriftPct)} (flat within 10%: ${flat})`,
    `single minutes 6-${n} against minute 5: CPU ${span(cpuRangePct)}, RSS ${span(rssRangePct)}; minutes 5-9: CPU ${show(cpuFrom5)}, RSS ${show(rssFrom5, ' MB')}, the last five against them: CPU ${show(cpuDriftFrom5Pct)}, RSS ${show(rssDriftFrom5Pct)}`,
    `at minute 5's machine speed (speed probe ${show(probe5, ' ms')} at minute 5, ${probes.length > 0 ? `${Math.min(...probes)}-${Math.max(...probes)} ms` : '-'} over the run): CPU over the last five ${show(cpuAdjLast)} (drift ${show(cpuAdjDriftPct)}), single minutes 6-${n} ${span(cpuAdjRangePct)}; minutes 5-9 ${show(cpuAdjFrom5)}, the last five against them ${show(cpuAdjDriftFrom5Pct)}; five-minute means ${fiveMinuteMeans.map((f) => `${f.from}-${f.to} ${show(f.cpuAtSpeed5Pct)}`).join(', ')}`,
    `ClickHouse's other threads by name, % of a core, minutes 6-10 / the last five: ${chNames.map((name) => `${name} ${meanOf(early, name)} / ${meanOf(tail, name)}`).join(', ')}`,
  ];
  return {
    fiveMinuteMeans,
    cpuAt5,
    rssAt5,
    cpuLast,
    rssLast,
    cpuDriftPct,
    rssDriftPct,
    flat,
    cpuRangePct,
    rssRangePct,
    cpuFrom5,
    rssFrom5,
    cpuDriftFrom5Pct,
    rssDriftFrom5Pct,
    cpuAdjLast,
    cpuAdjDriftPct,
    cpuAdjRangePct,
    cpuAdjFrom5,
    cpuAdjDriftFrom5Pct,
    lines,
  };
}
