// A process running the embedded ClickHouse ends at once when it aborts, whether abort() is called inside it
// (as an uncaught native exception or V8's out-of-memory handler does) or SIGABRT is sent to it. chDB's own
// SIGABRT handler, left in place, holds an aborting process for 300 s: the control shows it still up.

import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../support/abortChild.ts', import.meta.url));

async function readyChild(t: Test, mode: 'service' | 'chdb'): Promise<ChildProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'abort-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // Without the test runner's preload, which listens for SIGABRT (signal-exit) and which it puts back into a
  // child's environment (hence `env -u`): as `npm start` runs.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, '--import', 'tsx', CHILD, mode, dataDir], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code, signal) => reject(new Error(`the child exited before it was ready (${code ?? signal})`)));
  });
  return child;
}

/** How the child ended, or 'running' if it has not within `ms`. */
function endOf(child: ChildProcess, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('running'), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? `code ${code}`);
    });
  });
}

t.test('abort() inside the service process ends it at once', async (t) => {
  const child = await readyChild(t, 'service');
  child.send('abort');
  t.equal(await endOf(child, 30_000), 'SIGABRT');
});

t.test('a SIGABRT sent to it ends it at once', async (t) => {
  const child = await readyChild(t, 'service');
  child.kill('SIGABRT');
  t.equal(await endOf(child, 30_000), 'SIGABRT');
});

t.test("control: with chDB's handler in place, an aborting process is still up seconds later", async (t) => {
  const child = await readyChild(t, 'chdb');
  child.send('abort');
  t.equal(await endOf(child, 3_000), 'running');
});
