// bench:ws's native client: the subscribers of bench/ws/wsclient.c (one thread with epoll per process,
// `threads` processes), built here with the machine's C compiler on first use, and driven over its stdin and
// stdout. It reads what the Node client (bench/ws/subscriberPool.ts) reads at a fraction of the CPU, so on a
// machine whose cores the client shares with the server under test, more of them are left to the server.
// Same interface as SubscriberPool.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeReceipts, type PoolOptions, type PoolReceipts } from './subscriberPool.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The source: beside this module when run from source, under bench/ when run from dist/bench/ws. */
const SOURCE = [join(HERE, 'wsclient.c'), join(HERE, '..', '..', '..', 'bench', 'ws', 'wsclient.c')].find((p) => existsSync(p));
const BINARY = join(HERE, 'wsclient');

/** Builds the client when its binary is missing or older than its source; returns why it cannot, or undefined. */
export function buildNativeClient(): string | undefined {
  if (SOURCE === undefined) return 'bench/ws/wsclient.c not found';
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return undefined;
  const cc = process.env.CC ?? 'cc';
  const r = spawnSync(cc, ['-O2', '-o', BINARY, SOURCE], { encoding: 'utf8' });
  if (r.error !== undefined) return `${cc}: ${r.error.message}`;
  if (r.status !== 0) return `${cc} failed: ${r.stderr}`;
  return undefined;
}

/** One client process: its lines and binary answers read from stdout as they come. */
class ClientProcess {
  private out: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  private exited: Error | undefined;
  seen = 0;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => {
      this.out = this.out.length === 0 ? chunk : Buffer.concat([this.out, chunk]);
      this.takeSeen();
      this.waiter?.();
    });
    child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.on('exit', (code) => {
      this.exited = new Error(`the native client exited with ${code}`);
      this.waiter?.();
    });
  }

  /** "seen" lines come at any time while driving: kept as the latest figure, not queued. */
  private takeSeen(): void {
    for (;;) {
      if (!this.out.subarray(0, 5).equals(Buffer.from('seen '))) return;
      const nl = this.out.indexOf(10);
      if (nl < 0) return;
      this.seen = Number(this.out.toString('latin1', 5, nl));
      this.out = this.out.subarray(nl + 1);
    }
  }

  private async wait(): Promise<void> {
    if (this.exited !== undefined) throw this.exited;
    await new Promise<void>((r) => (this.waiter = r));
    this.waiter = undefined;
  }

  async line(): Promise<string> {
    for (;;) {
      this.takeSeen();
      const nl = this.out.indexOf(10);
      if (nl >= 0) {
        const line = this.out.toString('latin1', 0, nl);
        this.out = this.out.subarray(nl + 1);
        return line;
      }
      await this.wait();
    }
  }

  async bytes(n: number): Promise<Buffer> {
    while (this.out.length < n) await this.wait();
    const b = Buffer.from(this.out.subarray(0, n));
    this.out = this.out.subarray(n);
    return b;
  }

  async expect(line: string): Promise<void> {
    const got = await this.line();
    if (got !== line) throw new Error(`native client: expected ${line}, got ${got}`);
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** CPU ms of the process so far, user and kernel (Linux /proc; zeros elsewhere). */
  cpuMs(): { userMs: number; systemMs: number } {
    try {
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { userMs: Number(f[11]) * 10, systemMs: Number(f[12]) * 10 };
    } catch {
      return { userMs: 0, systemMs: 0 };
    }
  }
}

export class NativePool {
  private constructor(private readonly procs: readonly ClientProcess[]) {}

  static async start(options: PoolOptions): Promise<NativePool> {
    const why = buildNativeClient();
    if (why !== undefined) throw new Error(`the native client cannot be built: ${why}`);
    const n = Math.max(1, Math.min(options.threads, options.subscribers));
    const procs: ClientProcess[] = [];
    for (let t = 0; t < n; t++) {
      const share = Math.floor(options.subscribers / n) + (t < options.subscribers % n ? 1 : 0);
      const child = spawn(BINARY, [String(options.port), options.path, options.subscribe, String(share), options.record ? '1' : '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
      procs.push(new ClientProcess(child));
    }
    await Promise.all(procs.map((p) => p.expect('subscribed')));
    return new NativePool(procs);
  }

  async drive(): Promise<void> {
    for (const p of this.procs) p.send('drive');
    await Promise.all(this.procs.map((p) => p.expect('driving')));
  }

  get seen(): number {
    return Math.min(...this.procs.map((p) => p.seen));
  }

  /** CPU ms of all client processes so far. */
  cpuMs(): { userMs: number; systemMs: number } {
    const all = this.procs.map((p) => p.cpuMs());
    return { userMs: all.reduce((s, c) => s + c.userMs, 0), systemMs: all.reduce((s, c) => s + c.systemMs, 0) };
  }

  async finish(): Promise<PoolReceipts> {
    for (const p of this.procs) p.send('finish');
    const parts = await Promise.all(
      this.procs.map(async (p) => {
        const head = (await p.line()).split(' ');
        if (head[0] !== 'receipts') throw new Error(`native client: expected receipts, got ${head.join(' ')}`);
        const [n, delivered, held, first, last, messageBytes, roundP99, roundMax] = head.slice(1).map(Number) as number[];
        const count = n as number;
        const ts = new Float64Array(new Uint8Array(await p.bytes(count * 8)).buffer);
        const at = new Float64Array(new Uint8Array(await p.bytes(count * 8)).buffer);
        return { ts, at, delivered: delivered as number, held: held as number, first: first as number, last: last as number, messageBytes: messageBytes as number, loopDelayP99Ms: roundP99 as number, loopDelayMaxMs: roundMax as number };
      }),
    );
    return mergeReceipts(parts);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null) return resolve();
            p.child.once('exit', () => resolve());
            p.send('close');
          }),
      ),
    );
  }
}
