// `npm run bench:http`: requests/s and latency of GET /book and GET /positions on the running service, and
// in the same run a bare uWS hello-world on the same machine as the ceiling. The server runs in a child
// process; autocannon drives it from this one. Rate limits are off for the run. The last line is one JSON
// object: {bareRps, bookRps, bookP99Ms, bookVsCeiling, positionsRps, positionsP99Ms}.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Started {
  readonly child: ChildProcess;
  readonly info: { port: number; tokenId?: string; user?: string; markets?: number };
}

function startServer(mode: 'bare' | 'service'): Promise<Started> {
  const script = fileURLToPath(new URL('./http/benchServer.js', import.meta.url));
  const child = spawn(process.execPath, [script, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line !== undefined) resolve({ child, info: JSON.parse(line.slice(6)) as Started['info'] });
    });
    child.on('exit', (code) => reject(new Error(`bench server (${mode}) exited with ${code}`)));
  });
}

async function stop(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

interface Load {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

async function load(url: string): Promise<Load> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1 });
  return { rps: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx + result.errors };
}

const bareServer = await startServer('bare');
const bare = await load(`http://127.0.0.1:${bareServer.info.port}/`);
await stop(bareServer);

const svc = await startServer('service');
const base = `http://127.0.0.1:${svc.info.port}`;
const book = await load(`${base}/book?token_id=${svc.info.tokenId ?? ''}`);
const positions = await load(`${base}/positions?user=${svc.info.user ?? ''}&limit=100`);
await stop(svc);

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`machine: ${cpu}, ${cpus().length} cores, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION} s per run`);
console.log('| run | requests/s | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|');
console.log(`| bare uWS hello-world (ceiling) | ${bare.rps} | ${bare.p50Ms} | ${bare.p99Ms} | ${bare.non2xx} |`);
console.log(`| GET /book (80 levels) | ${book.rps} | ${book.p50Ms} | ${book.p99Ms} | ${book.non2xx} |`);
console.log(`| GET /positions (${(svc.info.markets ?? 1) - 1} markets) | ${positions.rps} | ${positions.p50Ms} | ${positions.p99Ms} | ${positions.non2xx} |`);
console.log(JSON.stringify({ bareRps: bare.rps, bookRps: book.rps, bookP99Ms: book.p99Ms, bookVsCeiling: Number((book.rps / bare.rps).toFixed(3)), positionsRps: positions.rps, positionsP99Ms: positions.p99Ms, errors: book.non2xx + positions.non2xx }));
