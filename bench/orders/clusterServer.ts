// The server side of `npm run bench:cluster` (bench/clusterBench.ts runs bench:orders with
// BENCH_TARGET=cluster): the same IPC protocol as ordersServer.ts, over the scale-out roles as separate
// processes, as they are deployed: Kafka (KAFKA_BROKERS, or a local broker from scripts/kafka/broker.sh), the
// ClickHouse stand-in (the service serving its embedded chDB over ClickHouse's HTTP interface: no ClickHouse
// server can be installed here), one engine, one projector and one API node, which the load generator posts
// to. Every process runs with scripts/node-flags, as npm start runs the service.
//
// Answers: {op: 'cpu'} the CPU of each process (from /proc; `threads` holds it per role, and the Kafka broker's
// JVM's when this server started the broker), the engine's and the projector's log positions, and the API
// node's replica delay (its replica_delay_seconds summary: p50, p99);
// {op: 'settle'} waits until the projector holds the engine's last position. Profiles and heap snapshots are
// refused (there is no single process to profile); BENCH_CLUSTER_PROF=<dir> instead writes a V8 CPU profile of
// each role process's main thread over its whole life (node --cpu-prof) into that directory when the bench ends.
// SIGTERM stops every process and removes their data.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

interface Message {
  readonly op: string;
  readonly id: number;
}

const self = fileURLToPath(import.meta.url);
const ts = self.endsWith('.ts');
const root = join(self, ts ? '../../..' : '../../../..');
const mainScript = join(root, ts ? 'server/main.ts' : 'dist/server/main.js');
const NODE_FLAGS = readFileSync(join(root, 'scripts/node-flags'), 'utf8').split(/\s+/).filter((f) => f !== '');
const work = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
const children: { name: string; child: ChildProcess }[] = [];
const PROFILE_DIR = process.env.BENCH_CLUSTER_PROF;
let kafkaState: string | undefined;

function cleanUp(): void {
  for (const { child } of children) child.kill('SIGKILL');
  if (kafkaState !== undefined) {
    try {
      execFileSync('bash', [join(root, 'scripts/kafka/broker.sh'), 'stop'], { env: { ...process.env, KAFKA_STATE_DIR: kafkaState }, stdio: 'ignore' });
    } catch {
      // the watchdog stops it too
    }
  }
  rmSync(work, { recursive: true, force: true });
}

function brokers(): string {
  if (process.env.KAFKA_BROKERS !== undefined && process.env.KAFKA_BROKERS !== '') return process.env.KAFKA_BROKERS;
  kafkaState = mkdtempSync(join(tmpdir(), 'bench-kafka-'));
  const out = execFileSync('bash', [join(root, 'scripts/kafka/broker.sh'), 'start'], { env: { ...process.env, KAFKA_STATE_DIR: kafkaState, KAFKA_OWNER_PID: String(process.pid) }, stdio: ['ignore', 'pipe', 'inherit'] });
  return out.toString().trim().split('\n').pop() ?? '';
}

/** Starts `node main ...` and resolves with the first JSON log line for each of `matches`, in their order. */
function startProcess(name: string, args: string[], matches: ((line: Record<string, unknown>) => boolean)[]): Promise<Record<string, unknown>[]> {
  const profile = PROFILE_DIR === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR, '--cpu-prof-name', `${name}.cpuprofile`];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, ...(ts ? ['--import', 'tsx'] : []), mainScript, '--log-format', 'json', '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push({ name, child });
  const found: (Record<string, unknown> | undefined)[] = matches.map(() => undefined);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was up`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        process.stderr.write(`${name}: ${text}\n`);
        return;
      }
      if (typeof line.level === 'number' && line.level >= 50) process.stderr.write(`${name}: ${text}\n`);
      matches.forEach((m, i) => {
        if (found[i] === undefined && m(line)) found[i] = line;
      });
      if (found.every((f) => f !== undefined)) resolve(found as Record<string, unknown>[]);
    });
  });
}

const msg = (text: string) => (l: Record<string, unknown>): boolean => l.msg === text;
const portOf = (line: Record<string, unknown> | undefined): number => line?.port as number;

async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

/** The pid of the broker this server started (its state file's KAFKA_PID); undefined with KAFKA_BROKERS. */
function kafkaPid(): number | undefined {
  if (kafkaState === undefined) return undefined;
  try {
    const line = readFileSync(join(kafkaState, 'broker.env'), 'utf8').split('\n').find((l) => l.startsWith('KAFKA_PID='));
    return line === undefined ? undefined : Number(line.slice('KAFKA_PID='.length));
  } catch {
    return undefined;
  }
}

/** CPU time of a process (user + system, µs) from /proc. */
function processCpuUs(pid: number): { user: number; system: number } {
  return statCpuUs(`/proc/${pid}/stat`);
}

/** CPU time (user + system, µs) from a /proc stat file, of a process or of one of its threads. */
function statCpuUs(file: string): { user: number; system: number } {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = 1e6 / 100;
  return { user: Number(fields[11]) * tick, system: Number(fields[12]) * tick };
}

/**
 * CPU time (µs) of a JVM's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre" in /proc): while a
 * freshly started broker still compiles its hot paths, they take a large share of its CPU.
 */
function jitCpuUs(pid: number): number {
  let us = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    try {
      if (!readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').includes('CompilerThre')) continue;
      const cpu = statCpuUs(`/proc/${pid}/task/${tid}/stat`);
      us += cpu.user + cpu.system;
    } catch {
      // the thread ended meanwhile
    }
  }
  return us;
}

/** Profiled processes write their profile on a graceful exit: SIGTERM them and wait (at most 20 s) first. */
async function stopGracefully(): Promise<void> {
  if (PROFILE_DIR === undefined) return;
  await Promise.all(
    children.map(({ child }) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 20_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
    ),
  );
}

process.on('SIGTERM', () => {
  void stopGracefully().then(() => {
    cleanUp();
    process.exit(0);
  });
});

// The projector and the ClickHouse server are batch work off the order path: on hosts of their own in a
// deployment, here on the order path's 2 cores at a lower CPU priority (--nice), so that they take what the
// order path leaves, as they would on their own hosts; their lag at the end of the window is printed.
// BENCH_BATCH_NICE=0 runs them at the order path's priority.
const BATCH_NICE = Number(process.env.BENCH_BATCH_NICE ?? 10);
const batchNice = BATCH_NICE > 0 ? ['--nice', String(BATCH_NICE)] : [];

try {
  const kafka = brokers();
  const password = randomBytes(12).toString('hex');
  const [chLine] = await startProcess(
    'clickhouse',
    ['--data-dir', join(work, 'ch'), ...batchNice, '--http-port', '0', '--header-edge=false', '--signature-workers', '0', '--demo-catalog=false', '--demo-traders=false', '--clickhouse-http-port', '0', '--clickhouse-service-password', password],
    [(l) => typeof l.msg === 'string' && l.msg.startsWith('serving the embedded ClickHouse')],
  );
  const operatorToken = randomBytes(24).toString('hex');
  const common = [
    '--log-backend', 'kafka', '--kafka-brokers', kafka, '--kafka-topic', `bench-${randomBytes(4).toString('hex')}`,
    '--clickhouse-mode', 'server', '--clickhouse-url', `http://127.0.0.1:${portOf(chLine)}`, '--clickhouse-user', 'service', '--clickhouse-password', password,
    '--engine-token', randomBytes(16).toString('hex'), '--auth-secret', randomBytes(24).toString('hex'), '--demo-traders=false', '--http-port', '0',
  ];
  const [enginePortLine, engineHttpLine] = await startProcess('engine', [...common, '--role', 'engine', '--data-dir', join(work, 'engine'), '--engine-port', '0'], [msg('taking commands from API nodes'), msg('engine role: /health, /ready and /metrics')]);
  const [projectorLine] = await startProcess('projector', [...common, '--role', 'projector', '--data-dir', join(work, 'projector'), ...batchNice], [msg('projector role: /health, /ready and /metrics')]);
  const [apiLine] = await startProcess(
    'api',
    [
      ...common, '--role', 'api', '--data-dir', join(work, 'api'), '--engine-address', `127.0.0.1:${portOf(enginePortLine)}`,
      '--rate-limit', 'false', '--auth-freshness-sec', '3600', '--order-timestamp-window-sec', '3600', '--operator-token', operatorToken,
      ...(process.env.BENCH_HEADER_EDGE === 'false' ? ['--header-edge', 'false'] : []),
    ],
    [msg('listening'), msg('connected to the engine')],
  );
  const apiPort = portOf(apiLine);
  const engineHttp = portOf(engineHttpLine);
  const projectorHttp = portOf(projectorLine);

  interface ClobMarket {
    condition_id: string;
    tokens: { token_id: string }[];
    minimum_tick_size: number;
    minimum_order_size: number;
    neg_risk: boolean;
    active: boolean;
    maker_base_fee: number;
    taker_base_fee: number;
  }
  const listed = ((await (await fetch(`http://127.0.0.1:${apiPort}/clob/markets`)).json()) as { data: ClobMarket[] }).data;
  const markets = listed
    .filter((m) => m.active && !m.neg_risk && m.minimum_tick_size === 0.01 && m.minimum_order_size <= 5)
    .map((m) => ({ conditionId: m.condition_id, tokenIds: m.tokens.map((t) => t.token_id), minSize: m.minimum_order_size * 1_000_000, makerFeeBps: m.maker_base_fee, takerFeeBps: m.taker_base_fee }));
  if (markets.length === 0) throw new Error('the demo catalog lists no active standard market with tick 0.01 and min size <= 5');

  const handle = async (m: Message): Promise<object> => {
    switch (m.op) {
      case 'cpu': {
        const threads: Record<string, number> = {};
        let user = 0;
        let system = 0;
        const pids = children.flatMap(({ name, child }) => (child.pid === undefined ? [] : [{ name, pid: child.pid }]));
        const broker = kafkaPid();
        if (broker !== undefined) pids.push({ name: 'kafka broker (JVM)', pid: broker });
        for (const { name, pid } of pids) {
          const cpu = processCpuUs(pid);
          threads[name] = (cpu.user + cpu.system) / 1000;
          user += cpu.user;
          system += cpu.system;
        }
        const apiText = await (await fetch(`http://127.0.0.1:${apiPort}/metrics`)).text();
        const engineText = await (await fetch(`http://127.0.0.1:${engineHttp}/metrics`)).text();
        /** A summary's quantile (seconds, as ms; or a count) from a metrics text. */
        const quantileOf = (text: string, name: string, q: string, scale = 1000): number => {
          const line = text.split('\n').find((l) => l.startsWith(`${name}{quantile="${q}"}`));
          return line === undefined ? Number.NaN : Number((Number(line.split(' ').pop()) * scale).toFixed(2));
        };
        const quantile = (q: string): number => quantileOf(apiText, 'replica_delay_seconds', q);
        return {
          threads,
          cpu: { user, system },
          brokerJitMs: broker === undefined ? 0 : jitCpuUs(broker) / 1000,
          logPos: await metric(engineHttp, 'engine_log_position'),
          projectorPos: await metric(projectorHttp, 'projection_position'),
          engineSeq: 0,
          loopDelay: { p50Ms: 0, p99Ms: 0, maxMs: 0 },
          gc: { count: 0, totalMs: 0, p99Ms: 0, maxMs: 0, msByKind: {} },
          rssMb: 0,
          appends: { appends: 0, records: 0, ms: 0, maxMs: 0, p90Ms: 0, p99Ms: 0 },
          replicaDelay: { p50Ms: quantile('0.5'), p90Ms: quantile('0.9'), p99Ms: quantile('0.99') },
          engineAppend: {
            p50Ms: quantileOf(engineText, 'engine_append_seconds', '0.5'),
            p99Ms: quantileOf(engineText, 'engine_append_seconds', '0.99'),
            commandsP50: quantileOf(engineText, 'engine_batch_commands', '0.5', 1),
            commandsP99: quantileOf(engineText, 'engine_batch_commands', '0.99', 1),
          },
        };
      }
      case 'settle': {
        const started = performance.now();
        const target = await metric(engineHttp, 'engine_log_position');
        while ((await metric(projectorHttp, 'projection_position')) < target) await new Promise((r) => setTimeout(r, 50));
        return { ms: performance.now() - started, logPos: target };
      }
      default:
        throw new Error(`${m.op} is not available against the cluster (no single process to profile)`);
    }
  };
  process.on('message', (m: Message) => {
    handle(m).then(
      (answer) => process.send?.({ id: m.id, ...answer }),
      (error: unknown) => process.send?.({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.stdout.write(`READY ${JSON.stringify({ port: apiPort, operatorToken, edge: process.env.BENCH_HEADER_EDGE !== 'false', uwsNative: true, markets, batchNice: BATCH_NICE })}\n`);
} catch (error) {
  process.stderr.write(`the cluster did not start: ${error instanceof Error ? error.stack : String(error)}\n`);
  cleanUp();
  process.exit(1);
}
