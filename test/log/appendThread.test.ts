// The journal's writer thread: appends complete while every thread of libuv's pool is busy (here, blocked
// opening FIFOs that nobody writes to, as a long chDB query would hold one), writes land in order (one
// larger than the shared region in pieces), a failed write rejects with its error and the thread goes on,
// poll() settles a finished write without waiting for the event loop, and a write settles even when the
// Atomics.waitAsync wake-up never comes (the fallback read); one wait is armed per write awaited in turn.

import t from 'tap';
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppendThread, REGION_BYTES } from '../../log/journal/appendThread.js';
import { Journal } from '../../log/journal/journal.js';
import { watchTallies } from '../../threads/answerWatch.js';
import { recordsFor, sessionCommands } from '../support/records.js';

const records = recordsFor(sessionCommands(50));

t.test('an append completes while libuv\'s pool is held by other work', { skip: process.platform !== 'linux' && 'mkfifo' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'append-thread-'));
  const journal = await Journal.open({ dir: join(dir, 'log'), segmentBytes: 64 << 20 });
  // More blocked opens than the pool has threads (UV_THREADPOOL_SIZE, 4 unless raised): every thread waits.
  const size = Math.max(4, Number(process.env.UV_THREADPOOL_SIZE ?? 4));
  const fifos = Array.from({ length: size + 2 }, (_, i) => join(dir, `fifo-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const blocked = fifos.map((fifo) => open(fifo, 'r'));
  let poolFree = false;
  const probe = open(join(dir, 'log'), 'r').then((h) => {
    poolFree = true;
    return h.close();
  });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(poolFree, false, 'the pool is busy: a file open queued behind the FIFOs has not run');
  const started = performance.now();
  const done = await Promise.race([journal.append(records.slice(0, 5)).then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5000))]);
  t.ok(done, 'the append completed');
  const ms = performance.now() - started;
  t.equal(journal.lastPos, 5);
  t.ok(ms < 1000, `append took ${ms.toFixed(1)} ms with the pool busy`);
  t.equal(poolFree, false, 'and the pool was still busy when it completed');
  // Release the pool: a writer on each FIFO lets its open return.
  const writers = fifos.map((fifo) => openSync(fifo, 'w'));
  for (const handle of await Promise.all(blocked)) await handle.close();
  for (const fd of writers) closeSync(fd);
  await probe;
  await journal.close();
});

t.test('writes land whole and in order; a bad descriptor rejects', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'append-thread-'));
  const path = join(dir, 'out');
  const fd = openSync(path, 'a');
  const thread = await AppendThread.start();
  const chunks = Array.from({ length: 200 }, (_, i) => {
    const b = Buffer.allocUnsafe(1 + (i * 37) % 5000);
    b.fill(i % 251);
    return b;
  });
  // Larger than the region: it goes in three pieces, each its own round trip, and lands whole between its neighbours.
  const large = Buffer.allocUnsafe(2 * REGION_BYTES + 12345);
  for (let i = 0; i < large.length; i += 4096) large[i] = (i / 4096) % 256;
  chunks.splice(100, 0, large);
  const expected = Buffer.concat(chunks);
  await Promise.all(chunks.map((c) => thread.write(fd, c)));
  t.ok(readFileSync(path).equals(expected), 'bytes on disk are the writes, in the order asked, pooled views and the large one alike');
  const readOnly = openSync(path, 'r');
  const failed = thread.write(readOnly, Buffer.from('not written'));
  const after = thread.write(fd, Buffer.from('after'));
  await t.rejects(failed, /EBADF/, 'a failed write (a descriptor opened for reading) rejects with its error');
  await after.then(() => t.pass('the write queued behind a failure goes on'));
  closeSync(readOnly);
  t.ok(readFileSync(path).subarray(expected.length).equals(Buffer.from('after')), 'and lands');
  closeSync(fd);
  await thread.close();
  await t.rejects(thread.write(fd, Buffer.allocUnsafeSlow(1)), /exited/, 'after close, writes reject');
});

/** Flushes the microtask queue without letting the event loop turn (no wake-up can settle a write meanwhile). */
async function microtasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** Waits, without yielding to the event loop, until the file at fd holds `bytes` bytes. */
function spinUntilSize(fd: number, bytes: number): void {
  const until = Date.now() + 10_000;
  while (fstatSync(fd).size < bytes && Date.now() < until) {
    // busy: the event loop must not turn, or the wake-up could settle the write instead of poll()
  }
}

t.test('poll() settles a finished write without an event-loop turn; the wake-up settles it otherwise', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'append-thread-'));
  const fd = openSync(join(dir, 'out'), 'a');
  const thread = await AppendThread.start();

  let first = false;
  void thread.write(fd, Buffer.allocUnsafe(100)).then(() => (first = true));
  spinUntilSize(fd, 100);
  await microtasks();
  t.equal(first, false, 'written, but nothing settles it while the loop cannot turn');
  // Polls with only microtasks between them: the loop never turns, so only poll() can settle the write.
  const until = Date.now() + 10_000;
  while (!first && Date.now() < until) {
    thread.poll();
    await microtasks();
  }
  t.equal(first, true, 'poll() settled it, still without a turn');

  let second = false;
  const written = thread.write(fd, Buffer.allocUnsafe(50)).then(() => (second = true));
  await written;
  t.equal(second, true, 'without poll(), the wake-up (Atomics.waitAsync) settles it');
  t.equal(thread.poll(), false, 'a poll with nothing pending is harmless, and says it settled nothing');

  closeSync(fd);
  await thread.close();
});

/** Writes to the non-blocking descriptor `fd` of a pipe until it takes no more: every page of it full, none with room. */
function fillPipe(fd: number): void {
  const chunk = Buffer.alloc(4096);
  // Whole pages first, then ever smaller writes into the last page, so that not even one byte more fits.
  for (let size = 4096; size >= 1; size >>= 1) {
    for (;;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw error;
      }
    }
  }
}

/** Reads the non-blocking descriptor `fd` of a pipe until it is empty. */
function drainPipe(fd: number): void {
  const buffer = Buffer.allocUnsafe(65536);
  for (;;) {
    try {
      if (readSync(fd, buffer) === 0) return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
      throw error;
    }
  }
}

t.test('many writes, each waited for in turn: one wait armed for each, at most one outstanding', { skip: process.platform !== 'linux' && 'mkfifo' }, async (t) => {
  // Each write goes to a full FIFO, so the writer thread is held in its write until this thread drains it:
  // the write cannot be answered before its wait is armed, however the two threads are scheduled. (Written to
  // a file, the writer may finish before this thread arms, as when it preempts this thread on a loaded
  // machine; the wait then finds the answer already there and is not armed.)
  const dir = mkdtempSync(join(tmpdir(), 'append-thread-'));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  const target = openSync(fifo, constants.O_WRONLY);
  const thread = await AppendThread.start();
  const writes = 50;
  const before = { ...(watchTallies().get('journal') ?? { armed: 0, woken: 0, fallbackSettles: 0 }) };
  for (let i = 0; i < writes; i++) {
    fillPipe(filler);
    const written = thread.write(target, Buffer.alloc(10));
    drainPipe(reader);
    await written;
  }
  const after = watchTallies().get('journal') ?? { armed: 0, woken: 0, fallbackSettles: 0 };
  const armed = after.armed - before.armed;
  const byFallback = after.fallbackSettles - before.fallbackSettles;
  t.ok(armed >= 1, `waits armed: ${armed} for ${writes} writes (the first certainly: this thread's watch had none sleeping)`);
  // A write settled by the fallback read leaves its wait asleep, and that wait serves the next write's answer
  // (answerWatch.ts): so every write has a wait of its own but for at most one per fallback settle.
  t.ok(armed + byFallback >= writes, `waits armed (${armed}) and fallback settles (${byFallback}) cover the ${writes} writes`);
  t.ok(armed <= writes, 'never more than one wait armed per write');
  t.ok(after.armed - after.woken <= 1, `waits outstanding: ${after.armed - after.woken} (at most one)`);
  for (const fd of [target, filler, reader]) closeSync(fd);
  await thread.close();
});

t.test('a write settles without poll() when the waitAsync wake-up never comes (the fallback read)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'append-thread-'));
  const fd = openSync(join(dir, 'out'), 'a');
  const thread = await AppendThread.start();
  // As the lost wake-up looks from this thread: the wait is armed and never resolves.
  const real = Atomics.waitAsync;
  Atomics.waitAsync = ((): { async: true; value: Promise<'ok'> } => ({ async: true, value: new Promise<'ok'>(() => undefined) })) as unknown as typeof Atomics.waitAsync;
  try {
    const settlesBefore = watchTallies().get('journal')?.fallbackSettles ?? 0;
    const started = Date.now();
    const settled = await Promise.race([
      thread.write(fd, Buffer.allocUnsafe(64)).then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
    ]);
    t.equal(settled, true, `settled after ${Date.now() - started} ms, by the fallback read alone`);
    t.equal(fstatSync(fd).size, 64, 'and its bytes are in the file');
    // The writes after it, each asked for once the last has settled, settle the same way.
    for (let i = 0; i < 10; i++) await thread.write(fd, Buffer.allocUnsafe(1));
    t.equal(fstatSync(fd).size, 74, 'ten more writes, one after another, settle too');
    t.equal((watchTallies().get('journal')?.fallbackSettles ?? 0) - settlesBefore, 11, 'each settled by the fallback read, and counted (/metrics: thread_wait_fallback_settles_total)');
  } finally {
    Atomics.waitAsync = real;
  }
  closeSync(fd);
  await thread.close();
});
