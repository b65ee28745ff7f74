// Processes of the service for multi-process tests: `node --import tsx server/main.ts` with JSON logs on
// stdout, waited for until a given log line, killed or stopped at will.
// - startClickHouseHost(): the service serving its embedded ClickHouse over ClickHouse's HTTP interface to
//   its read-write service user: the ClickHouse server of a test (none can be installed on these machines;
//   this is the real engine behind the real protocol).
// - startServiceProcess(): any role, with its settings as flags.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('../../', import.meta.url).pathname;

export const CLICKHOUSE_SERVICE_USER = 'service';
export const CLICKHOUSE_SERVICE_PASSWORD = 'service-password-for-tests';

export interface LogLine {
  readonly level?: number;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Every log line so far (JSON). */
  readonly lines: LogLine[];
  /** The first line (from now or already seen) for which `match` holds; rejects after `timeoutMs` or if the process exits. */
  waitFor(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export function startServiceProcess(args: readonly string[], label: string): ServiceProcess {
  // Without tap's variables and loader hooks (NODE_OPTIONS): the service is a plain process, whose worker
  // threads load their TypeScript through tsx alone (threads/moduleWorker.ts).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP') && !name.startsWith('_TAPJS') && name !== 'NODE_OPTIONS'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--log-format', 'json', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Never outlives the test process, whatever way it ends.
  const reap = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', reap);
  const lines: LogLine[] = [];
  const watchers = new Set<(line: LogLine) => void>();
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.off('exit', reap);
      resolve(code);
    }),
  );
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text };
    }
    lines.push(line);
    for (const w of watchers) w(line);
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const waitFor = (match: (line: LogLine) => boolean, timeoutMs = 60_000): Promise<LogLine> => {
    const seen = lines.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<LogLine>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        watchers.delete(watch);
      };
      const watch = (line: LogLine): void => {
        if (!match(line)) return;
        done();
        resolve(line);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${label}: no matching log line within ${timeoutMs} ms; last lines: ${lines.slice(-5).map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`));
      }, timeoutMs);
      watchers.add(watch);
      void exited.then((code) => {
        if (!watchers.has(watch)) return;
        done();
        reject(new Error(`${label} exited (${code}) before the awaited log line; last lines: ${lines.slice(-5).map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`));
      });
    });
  };
  const kill = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (exitCode !== undefined) return exitCode;
    child.kill(signal);
    return exited;
  };
  return { child, lines, waitFor, exited, kill };
}

/** A fresh data directory. */
export function dataDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `${label}-`));
}

/** The service serving its embedded ClickHouse to the read-write service user; resolves with its URL. */
export async function startClickHouseHost(): Promise<{ process: ServiceProcess; url: string }> {
  const proc = startServiceProcess(
    [
      '--data-dir', dataDir('ch-host'), '--http-port', '0', '--header-edge=false', '--signature-workers', '0', '--demo-catalog=false', '--demo-traders=false',
      '--clickhouse-http-port', '0', '--clickhouse-service-password', CLICKHOUSE_SERVICE_PASSWORD, '--log-level', 'info',
    ],
    'ClickHouse host',
  );
  const line = await proc.waitFor((l) => l.msg?.startsWith('serving the embedded ClickHouse') === true && typeof l.port === 'number');
  return { process: proc, url: `http://127.0.0.1:${line.port as number}` };
}
