// Where the order chain's threads run (--chain-affinity). An order crosses a chain of threads that, at a steady
// light rate, run one after another: the header edge forwards a hold's requests to the request thread, which
// hands their signatures to the signature worker and waits, then their records to the journal's writer and
// waits, then answers through the edge. Each hand-over to a thread asleep on another CPU costs the waker a
// wake-up across CPUs (an inter-processor interrupt; on a virtual machine an exit to the hypervisor), and the
// woken thread starts on caches the chain did not warm. While the chain's threads together use a fraction of
// one CPU, nothing is gained by spreading them: this runs them on one CPU then (their CPU affinity), and lets
// them run anywhere again as soon as they need more (docs/benchmarks.md, "What a steady rate pays for": at 400
// orders/s the request thread spent ~9% less per order, the process ~5%).
//
// Contract:
// - The chain is the request thread (the process's main thread), the edge's thread (pmx-edge), the signature
//   workers (pmx-signatures) and the journal's writer (pmx-journal), found by name. Every SAMPLE_MS it adds up
//   their CPU time (/proc/self/task/<tid>/schedstat) into a share of one CPU (ChainPlacement).
// - Spread (the start): once the share has stayed below PIN_BELOW for SETTLE_MS, the chain is put on the first CPU
//   the process may use. Pinned: the first sample above SPREAD_ABOVE puts it back on every CPU the process may use
//   (those it was given at start), so a rising load waits at most one sample for the second CPU. So does a CPU that
//   others keep busy: when threads other than the chain's (another process pinned there) used more than
//   OTHERS_ABOVE of it over the last CONTENDED_WINDOW_MS, the chain is spread and stays so for
//   CONTENDED_HOLD_OFF_MS. (The chain's own waits say nothing of that: pinned, each woken thread waits for the
//   one that woke it, ~10% of the time at 400 orders/s.)
// - Other threads are never moved. A thread the chain's threads start while pinned (a replaced signature
//   worker) starts pinned too, and is spread with the chain.
// - Affinity is set with taskset(1) (util-linux; Node has no call for it), so a change costs a process spawn:
//   changes are rare by the rule above. Where the process may use one CPU only, /proc cannot be read or taskset
//   fails, it says so once (onError) and stops, the chain left spread. Linux only.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { threadIds } from './processPriority.js';

/** How often the chain's CPU is read. */
export const SAMPLE_MS = 250;
/**
 * Pin when the chain has used less than this share of one CPU for SETTLE_MS. At 400 orders/s the chain, spread,
 * uses 0.20–0.28 of a CPU on this project's 2-core VM as its speed varies by the hour, at 1,200/s 0.33–0.39 on a
 * fast hour; pinned is cheaper at the first and not at the second (docs/benchmarks.md).
 */
export const PIN_BELOW = 0.3;
export const SETTLE_MS = 2_000;
/** Spread as soon as a sample finds the pinned chain above this share of its CPU. */
export const SPREAD_ABOVE = 0.4;
/**
 * Spread when threads other than the chain's used more than this share of the pinned CPU over the last
 * CONTENDED_WINDOW_MS; it is then not pinned again for CONTENDED_HOLD_OFF_MS, so that such neighbours do not move
 * it back and forth.
 */
export const OTHERS_ABOVE = 0.5;
export const CONTENDED_WINDOW_MS = 2_000;
export const CONTENDED_HOLD_OFF_MS = 60_000;

const CHAIN_NAMES: ReadonlySet<string> = new Set(['pmx-edge', 'pmx-signatures', 'pmx-journal']);

export type Placement = 'spread' | 'pinned';

/** The rule alone: fed each sample's shares of one CPU and its length, it says when to move the chain. */
export class ChainPlacement {
  private current: Placement = 'spread';
  private quietMs = 0;
  /** Time left before the chain may be pinned again after others were found keeping its CPU busy. */
  private holdOffMs = 0;

  get placement(): Placement {
    return this.current;
  }

  /**
   * The placement to change to after a sample lasting `elapsedMs` in which the chain ran for `share` of it (its
   * CPU time over the wall time), and in whose last CONTENDED_WINDOW_MS other threads used `othersShare` of the
   * CPU the chain is pinned to (read only while pinned); undefined: none.
   */
  observe(share: number, othersShare: number, elapsedMs: number): Placement | undefined {
    if (this.current === 'pinned') {
      const contended = othersShare > OTHERS_ABOVE;
      if (share <= SPREAD_ABOVE && !contended) return undefined;
      this.current = 'spread';
      this.quietMs = 0;
      if (contended) this.holdOffMs = CONTENDED_HOLD_OFF_MS;
      return 'spread';
    }
    this.holdOffMs = Math.max(0, this.holdOffMs - elapsedMs);
    this.quietMs = share < PIN_BELOW && this.holdOffMs === 0 ? this.quietMs + elapsedMs : 0;
    if (this.quietMs < SETTLE_MS) return undefined;
    this.current = 'pinned';
    return 'pinned';
  }
}

/** `0-1,4` → [0, 1, 4]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    if (part === '') continue;
    const [from, to] = part.split('-').map(Number) as [number, number | undefined];
    for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** The chain's thread ids: the main thread and the threads named as the chain's. */
function chainThreads(): number[] {
  const tids = [process.pid];
  for (const tid of threadIds()) {
    if (tid === process.pid) continue;
    try {
      if (CHAIN_NAMES.has(readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim())) tids.push(tid);
    } catch {
      // ended since the listing
    }
  }
  return tids;
}

/** Nanoseconds `tid` has run (schedstat's first field); undefined once it has ended. */
function ranNs(tid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1');
    return Number(text.slice(0, text.indexOf(' ')));
  } catch {
    return undefined;
  }
}

/** Nanoseconds `cpu` has been busy (not idle, not waiting for I/O) since boot, from /proc/stat (in USER_HZ ticks). */
function cpuBusyNs(cpu: number): number {
  const stat = readFileSync('/proc/stat', 'latin1');
  const at = stat.indexOf(`\ncpu${cpu} `);
  if (at < 0) throw new Error(`/proc/stat has no line for CPU ${cpu}`);
  const fields = stat.slice(at + 1, stat.indexOf('\n', at + 1)).split(' ').slice(1).map(Number);
  const busy = fields.reduce((a, b) => a + b, 0) - (fields[3] ?? 0) - (fields[4] ?? 0);
  return (busy * 1e9) / TICKS_PER_SECOND;
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

function taskset(cpus: string, tid: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('taskset', ['-p', '-c', cpus, String(tid)], { timeout: 5_000 }, (error) => {
      // A thread that ended meanwhile: taskset says so and fails; the chain is listed again next time.
      if (error === null || ranNs(tid) === undefined) resolve();
      else reject(error);
    });
  });
}

/** The pinned CPU's busy time and the chain's run time at one sample. */
interface WindowSample {
  readonly at: number;
  readonly cpuNs: number;
  readonly chainNs: number;
}

export interface ChainAffinity {
  readonly placement: Placement;
  /** Changes of placement so far. */
  readonly moves: number;
  /** Stops watching; a pinned chain is put back on every CPU first (the process may go on, as a test's does). */
  stop(): Promise<void>;
}

/**
 * Starts watching the chain. `onMove` is told each change; `onError` the reason it stops (the chain then runs
 * spread). The timer keeps no process alive.
 */
export function watchChainAffinity(onMove: (placement: Placement, cpus: string) => void, onError: (error: unknown) => void): ChainAffinity {
  const rule = new ChainPlacement();
  let moves = 0;
  let stopped = false;
  let moving = false;
  let all: string;
  let first: string;
  let tids: number[];
  try {
    const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1] ?? '';
    const cpus = parseCpuList(allowed);
    if (cpus.length < 2) throw new Error(`the process may use ${cpus.length} CPU(s) (${allowed || 'unknown'}): nothing to place`);
    all = allowed;
    first = String(cpus[0]);
    tids = chainThreads();
  } catch (error) {
    onError(error);
    return { placement: 'spread', moves: 0, stop: () => Promise.resolve() };
  }
  let last = sumNs(tids);
  let lastAt = performance.now();
  /** While pinned: the pinned CPU's busy time and the chain's run time at each sample of the last window. */
  let window: WindowSample[] = [];

  /** The chain's run time; undefined when one of its threads has ended (the chain is then listed again). */
  function sumNs(of: readonly number[]): number | undefined {
    let sum = 0;
    for (const tid of of) {
      const ns = ranNs(tid);
      if (ns === undefined) return undefined;
      sum += ns;
    }
    return sum;
  }

  /** Of the pinned CPU over the last CONTENDED_WINDOW_MS, the share other threads used; 0 until a window is full. */
  function othersShare(now: number, chainNs: number): number {
    window.push({ at: now, cpuNs: cpuBusyNs(Number(first)), chainNs });
    while (window.length > 2 && now - (window[1] as WindowSample).at >= CONTENDED_WINDOW_MS) window.shift();
    const oldest = window[0] as WindowSample;
    if (now - oldest.at < CONTENDED_WINDOW_MS) return 0;
    const others = (window[window.length - 1] as WindowSample).cpuNs - oldest.cpuNs - (chainNs - oldest.chainNs);
    return others / 1e6 / (now - oldest.at);
  }

  /** Puts every thread of the chain back on every CPU, as far as taskset can. */
  const spreadAll = (): Promise<void> => Promise.all(chainThreads().map((tid) => taskset(all, tid))).then(
    () => {},
    () => {},
  );

  const fail = (error: unknown): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    onError(error);
    void spreadAll(); // whatever a failed move left pinned
  };

  const move = async (to: Placement): Promise<void> => {
    if (stopped) return;
    moving = true;
    const cpus = to === 'pinned' ? first : all;
    try {
      tids = chainThreads();
      for (const tid of tids) await taskset(cpus, tid);
      moves++;
      onMove(to, cpus);
    } catch (error) {
      fail(error);
    } finally {
      moving = false;
      last = sumNs(tids);
      lastAt = performance.now();
      window = [];
    }
  };

  const sample = (): void => {
    if (stopped || moving) return;
    const now = performance.now();
    let current = sumNs(tids);
    const before = last;
    const elapsedMs = now - lastAt;
    lastAt = now;
    if (current === undefined) {
      tids = chainThreads(); // a worker was replaced: the next sample starts from here
      current = sumNs(tids);
      window = [];
    }
    last = current;
    if (current === undefined || before === undefined || elapsedMs <= 0) return;
    const share = (current - before) / 1e6 / elapsedMs;
    let others = 0;
    try {
      if (rule.placement === 'pinned') others = othersShare(now, current);
    } catch (error) {
      return fail(error);
    }
    const to = rule.observe(share, others, elapsedMs);
    if (to !== undefined) void move(to);
  };

  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    get placement() {
      return rule.placement;
    },
    get moves() {
      return moves;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      while (moving) await new Promise((resolve) => setTimeout(resolve, 10));
      if (rule.placement === 'pinned') await spreadAll();
    },
  };
}
