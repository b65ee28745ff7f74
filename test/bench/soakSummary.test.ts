// The soak's verdicts (bench/soakSummary.ts) and its speed probe (bench/speedProbe.ts): a run whose CPU moves only
// with the machine's speed reads flat at minute 5's speed and not without it; one whose work grows reads as growth
// either way.

import t from 'tap';
import { summarize, type SoakMinute } from '../../bench/soakSummary.js';
import { probeOnce, startSpeedProbe } from '../../bench/speedProbe.js';

function run(minutes: number, at: (minute: number) => { cpuPct: number; rssMb: number; probeMs: number }): SoakMinute[] {
  return Array.from({ length: minutes }, (_, i) => ({ minute: i + 1, chOtherByName: { ThreadPool: 0.2 }, ...at(i + 1) }));
}

t.test('a machine that slows by a third over the hour: the CPU drifts with it, and not at minute 5\'s speed', async (t) => {
  // The service's work is 5% of a core at minute 5's speed all through; the probe, and the CPU, rise by a third.
  const slow = (minute: number): number => 1 + Math.max(0, minute - 5) / 165;
  const s = summarize(run(60, (m) => ({ cpuPct: 5 * slow(m), rssMb: 500, probeMs: 4 * slow(m) })));
  t.equal(s.cpuAt5, 5);
  t.ok(s.cpuDriftPct !== null && s.cpuDriftPct > 30, `unadjusted drift ${s.cpuDriftPct}%`);
  t.equal(s.flat, false, 'the unadjusted verdict reads the drift as growth');
  t.equal(s.cpuAdjDriftPct, 0, 'at minute 5\'s speed: flat');
  t.same(s.cpuAdjRangePct, [0, 0]);
  t.equal(s.cpuAdjDriftFrom5Pct, 0);
  t.equal(s.rssDriftPct, 0);
  t.equal(s.fiveMinuteMeans.length, 12);
  t.equal(s.fiveMinuteMeans.at(-1)?.cpuAtSpeed5Pct, 5);
});

t.test('work that grows at a steady speed reads as growth in every reading', async (t) => {
  const s = summarize(run(60, (m) => ({ cpuPct: 5 + m * 0.05, rssMb: 400 + m * 2, probeMs: 4 })));
  t.equal(s.cpuAt5, 5.25);
  t.equal(s.cpuLast, 7.9, 'minutes 56-60: 7.8 to 8.0');
  t.equal(s.cpuDriftPct, 50.5);
  t.equal(s.cpuAdjDriftPct, 50.5, 'the same at an unchanged speed');
  t.equal(s.rssAt5, 410);
  t.equal(s.rssLast, 516);
  t.equal(s.rssDriftPct, 25.9);
  t.same(s.rssRangePct, [0.5, 26.8], 'minute 6 to minute 60');
  t.equal(s.rssFrom5, 414, 'minutes 5-9');
  t.equal(s.flat, false);
  t.match(s.lines.join('\n'), /flat within 10%: false/);
});

t.test('one high minute 5 in a flat run: the single comparison fails, the five-minute one holds', async (t) => {
  const s = summarize(run(60, (m) => ({ cpuPct: m === 5 ? 7 : 5.5, rssMb: 500, probeMs: 4 })));
  t.equal(s.cpuDriftPct, -21.4);
  t.equal(s.flat, false);
  t.equal(s.cpuFrom5, 5.8);
  t.equal(s.cpuDriftFrom5Pct, -5.2);
});

t.test('minutes without a probe: the adjusted readings are absent, not zero', async (t) => {
  const s = summarize(run(60, () => ({ cpuPct: 5, rssMb: 500, probeMs: Number.NaN })));
  t.equal(s.cpuAdjLast, null);
  t.equal(s.cpuAdjDriftPct, null);
  t.equal(s.cpuAdjRangePct, null);
  t.equal(s.flat, true);
  t.match(s.lines[3] ?? '', /speed probe - at minute 5/);
});

t.test('a run shorter than five minutes has no minute-5 figures', async (t) => {
  const s = summarize(run(3, () => ({ cpuPct: 5, rssMb: 500, probeMs: 4 })));
  t.equal(s.cpuAt5, null);
  t.equal(s.cpuDriftPct, null);
  t.equal(s.cpuFrom5, null);
  t.equal(s.flat, false);
});

t.test('the speed probe: a positive CPU time per probe, the median of a stretch', async (t) => {
  const once = probeOnce();
  t.ok(once > 0 && once < 1_000, `one probe: ${once} ms`);
  const probe = startSpeedProbe(20);
  await new Promise((r) => setTimeout(r, 130));
  const median = probe.take();
  t.ok(median > 0, `median of the stretch: ${median} ms`);
  t.ok(Number.isNaN(probe.take()), 'nothing since the last take');
  probe.stop();
});
