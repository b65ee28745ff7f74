// `npm run bench:edge`: what the header edge (api/http/headerEdge.ts) costs. A uWS hello-world runs in a
// child process, either alone on a TCP port (direct) or on a Unix socket behind the edge in the same
// process (as in the service); autocannon drives it from this process, 50 connections, 10 s per run.
// Three runs: direct; through the edge with hyphenated auth headers (the head's fast path: forwarded as a
// view plus the IP line); through the edge with the SDK's underscore names (the head rewritten).
//
// The hello-world answers 200 only when the poly-api-key header arrived with its value and, behind the
// edge, x-pmx-client-ip is 127.0.0.1; any other answer, error or timeout fails the bench (exit 1, no JSON
// line). The last line is one JSON object:
// {directRps, directP99Ms, edgeRps, edgeP99Ms, edgeUnderscoreRps, edgeUnderscoreP99Ms, edgeVsDirect}.
//
// Env: BENCH_SECONDS (10), BENCH_CONNECTIONS (50).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { us_listen_socket } from 'uWebSockets.js';
import { startHeaderEdge } from '../api/http/headerEdge.js';
import { loadUws } from '../api/http/uwsLoader.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const API_KEY = 'bench-key_0123456789';

type Mode = 'direct' | 'edge';

/** The child: a uWS hello-world, alone or behind the edge. Prints `READY {"port":N}`. */
async function serve(mode: Mode): Promise<void> {
  const { uws } = loadUws(false);
  const app = uws.App();
  app.get('/*', (res, req) => {
    const ok = req.getHeader('poly-api-key') === API_KEY && (mode === 'direct' || req.getHeader('x-pmx-client-ip') === '127.0.0.1');
    if (ok) res.end('Hello World!');
    else res.writeStatus('400 Bad Request').end('header missing');
  });
  let port: number;
  let stop: () => Promise<void>;
  if (mode === 'direct') {
    const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen')))));
    port = uws.us_socket_local_port(socket);
    stop = async () => uws.us_listen_socket_close(socket);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'pmx-edge-bench-'));
    const path = join(dir, 'uws.sock');
    const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen_unix((s) => (s ? resolve(s) : reject(new Error('listen_unix'))), path));
    const edge = await startHeaderEdge({ host: '127.0.0.1', port: 0, upstream: { path } });
    port = edge.port;
    stop = async () => {
      await edge.close();
      uws.us_listen_socket_close(socket);
      rmSync(dir, { recursive: true, force: true });
    };
  }
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));
  console.log(`READY ${JSON.stringify({ port })}`);
}

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
}

function startServer(mode: Mode): Promise<Started> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [script, 'serve', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line !== undefined) resolve({ child, port: (JSON.parse(line.slice(6)) as { port: number }).port });
    });
    child.on('exit', (code) => reject(new Error(`bench server (${mode}) exited with ${code}`)));
  });
}

async function stopServer(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

interface Load {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bad: number;
}

async function load(port: number, headers: Record<string, string>): Promise<Load> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: DURATION, pipelining: 1, headers });
  return {
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

async function run(mode: Mode, headers: Record<string, string>): Promise<Load> {
  const server = await startServer(mode);
  try {
    return await load(server.port, headers);
  } finally {
    await stopServer(server);
  }
}

async function main(): Promise<void> {
  const hyphens = { 'Poly-Api-Key': API_KEY, 'Poly-Address': '0x' + 'ab'.repeat(20), 'Poly-Timestamp': '1700000000' };
  const underscores = { POLY_API_KEY: API_KEY, POLY_ADDRESS: '0x' + 'ab'.repeat(20), POLY_TIMESTAMP: '1700000000' };
  const direct = await run('direct', hyphens);
  const edge = await run('edge', hyphens);
  const edgeUnderscore = await run('edge', underscores);

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`machine: ${cpu}, ${cpus().length} cores, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION} s per run, server and edge in one child process`);
  console.log('| run | requests/s | p50 ms | p99 ms | bad |');
  console.log('|---|---|---|---|---|');
  console.log(`| uWS direct (TCP) | ${direct.rps} | ${direct.p50Ms} | ${direct.p99Ms} | ${direct.bad} |`);
  console.log(`| edge → uWS (Unix socket), Poly-Api-Key | ${edge.rps} | ${edge.p50Ms} | ${edge.p99Ms} | ${edge.bad} |`);
  console.log(`| edge → uWS (Unix socket), POLY_API_KEY | ${edgeUnderscore.rps} | ${edgeUnderscore.p50Ms} | ${edgeUnderscore.p99Ms} | ${edgeUnderscore.bad} |`);
  const bad = direct.bad + edge.bad + edgeUnderscore.bad;
  if (bad > 0) {
    console.error(`FAIL: ${bad} requests were not answered 200 (a header did not arrive, an error or a timeout)`);
    process.exit(1);
  }
  console.log(
    JSON.stringify({
      directRps: direct.rps,
      directP99Ms: direct.p99Ms,
      edgeRps: edge.rps,
      edgeP99Ms: edge.p99Ms,
      edgeUnderscoreRps: edgeUnderscore.rps,
      edgeUnderscoreP99Ms: edgeUnderscore.p99Ms,
      edgeVsDirect: Number((edgeUnderscore.rps / direct.rps).toFixed(3)),
    }),
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3] === 'edge' ? 'edge' : 'direct');
else await main();
