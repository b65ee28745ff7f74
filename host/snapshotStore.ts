// Engine snapshots on local disk, each written atomically together with the log position it covers and the
// state hash at that position: write to a temporary file, fsync it, rename it into place, fsync the
// directory. A torn or unreadable snapshot is skipped in favour of the previous one. The newest `keep`
// snapshots are kept.
//
// Snapshots are made on a thread of their own (snapshotThread.ts), from an export the caller took (write()), or,
// once the caller has started a copy of its engine there (follow()) and sends it every durable record
// (followed()), from that copy (writeFollowed()): then the caller's thread exports nothing. take() is the one
// way the engine host and an API node take theirs: from the copy while it follows, else from an export. An API
// node's in-memory read model can have a copy there too, fed by the engine's copy (seedLive(), takeLive()).

import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { exportSnapshot, type Engine, type EngineSnapshot } from '../engine/index.js';
import { commandRecordOf, type LogRecord } from '../log/eventLog.js';
import { writeFileDurably } from '../log/durableFile.js';
import type { LiveStateOptions } from '../projections/live/liveState.js';
import { SnapshotThread, SnapshotThreadUnavailable } from './snapshotThread.js';
import type { NotificationStateOptions } from '../projections/notifications/notificationState.js';
import { snapshotText, SNAPSHOT_FILE_FORMAT } from './snapshotText.js';

export { SNAPSHOT_FILE_FORMAT };

export interface SnapshotFile {
  readonly format: typeof SNAPSHOT_FILE_FORMAT;
  /** Last log position the snapshot includes. */
  readonly pos: number;
  /** engine.stateHash() at that position. */
  readonly stateHash: string;
  /** Where a Kafka log reader may start looking for pos + 1 (an offset hint), when the log is Kafka. */
  readonly logHint?: number;
  readonly engine: EngineSnapshot;
}

const NAME = /^snapshot-(\d{20})\.json$/;

/**
 * Work started now, handed back as the function to call once the caller is ready for its outcome (take()'s
 * shape); a failure runs `lost` at once, and the caller hears of it when it calls, not as an unhandled rejection.
 */
function started<T>(work: Promise<T>, lost: () => void): () => Promise<T> {
  const held = work.catch((error: unknown) => {
    lost();
    throw error;
  });
  held.catch(() => undefined);
  return () => held;
}
const TEMP = /^snapshot-(\d{20})\.json\.tmp$/;

export class SnapshotStore {
  private readonly thread = new SnapshotThread();
  /** The snapshot thread could not start: snapshots are made on the calling thread. */
  private inline = false;
  /** The snapshot thread's copy of the engine follows (follow() succeeded, and no snapshot of it failed since). */
  private copy = false;
  /** A read model's copy follows beside it (seedLive() sent, and none of its snapshots failed since). */
  private liveCopy = false;
  /** The notifications' copy follows beside it (seedNotes() sent, and none of its snapshots failed since). */
  private notesCopy = false;

  constructor(
    readonly dir: string,
    private readonly keep = 3,
  ) {}

  /**
   * Writes the snapshot of an engine's state exported at log position `pos` (exportSnapshot, taken by the caller
   * at that position). Only the export's JSON is made on the calling thread; the state hash and the file are made
   * on the snapshot thread (snapshotThread.ts), or on the calling thread where that thread cannot start. Resolves
   * with the file's path once it is durable.
   */
  async write(pos: number, engine: EngineSnapshot): Promise<string> {
    const engineJson = JSON.stringify(engine);
    await mkdir(this.dir, { recursive: true });
    const path = this.pathOf(pos);
    if (!this.inline) {
      try {
        await this.thread.write(path, pos, engineJson);
      } catch (error) {
        if (!(error instanceof SnapshotThreadUnavailable)) throw error;
        this.inline = true;
      }
    }
    // Without the thread, on this one, as the thread would.
    if (this.inline) await writeFileDurably(path, snapshotText(pos, engineJson).text);
    await this.prune(pos);
    return path;
  }

  /**
   * Starts a copy of `engine`, at log position `pos`, on the snapshot thread: from then on the caller sends it
   * every record made durable after `pos` (followed()), and snapshots can be taken there (writeFollowed()).
   * Exports the engine once, now. Resolves false where the thread cannot run (snapshots are then made from the
   * caller's exports, on its thread); rejects if the copy does not hold the engine's state hash.
   */
  async follow(pos: number, engine: Engine): Promise<boolean> {
    if (this.inline) return false;
    let hash: string;
    try {
      hash = await this.thread.seed(pos, JSON.stringify(exportSnapshot(engine)));
    } catch (error) {
      if (!(error instanceof SnapshotThreadUnavailable)) throw error;
      this.inline = true;
      return false;
    }
    const expected = engine.stateHash();
    if (hash !== expected) throw new Error(`the snapshot thread's copy of the engine has state hash ${hash}, the engine ${expected}`);
    this.copy = true;
    // A seed of the engine's copy drops the copies beside it.
    this.liveCopy = false;
    this.notesCopy = false;
    return true;
  }

  /** The snapshot thread's copy of the engine follows: take() needs no export from the caller. */
  get following(): boolean {
    return this.copy;
  }

  /** The read model beside the copy follows (seedLive()): takeLive() needs nothing of the caller. */
  get followingLive(): boolean {
    return this.copy && this.liveCopy;
  }

  /**
   * Starts a copy of an in-memory read model (projections/live) beside the engine's copy, from the bytes of its
   * snapshot (liveSnapshot.ts snapshotBytes) at `pos`, where every record up to it and none after has been
   * sent (followed()); the bytes are also the snapshot written to `path`. Sent now, before anything is awaited;
   * the bytes move to the snapshot thread. From then on the copy applies the events the engine's copy
   * reproduces, and takeLive() asks it. Returns the function that resolves once the file is written (or
   * rejects: the copy is then not used).
   */
  seedLive(pos: number, bytes: Uint8Array, path: string, options: LiveStateOptions): () => Promise<void> {
    if (!this.copy) return started(Promise.reject(new Error("the snapshot thread's copy of the engine does not follow")), () => undefined);
    this.liveCopy = true;
    // Moved, not copied: a view of part of a larger buffer (a pool's) is copied out first.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return started(this.thread.seedLive(path, pos, own, options), () => (this.liveCopy = false));
  }

  /**
   * Takes the read model's snapshot at `pos` from its copy (which must follow: followingLive), now; returns
   * the function that resolves once it is written to `path`. A copy that cannot give it is not used again
   * until seeded again.
   */
  takeLive(pos: number, path: string): () => Promise<void> {
    const written = this.followingLive ? this.thread.writeFollowedLive(path, pos) : Promise.reject(new Error('no snapshot of the read model: its copy does not follow'));
    return started(written, () => (this.liveCopy = false));
  }

  /** The notifications beside the copy follow (seedNotes()): takeNotes() needs nothing of the caller. */
  get followingNotes(): boolean {
    return this.copy && this.notesCopy;
  }

  /**
   * As seedLive, for the notifications (projections/notifications: notificationSnapshots.ts snapshotBytes at
   * `pos`, their state's options): the bytes move to the snapshot thread and are written to `path`.
   */
  seedNotes(pos: number, bytes: Uint8Array, path: string, options: NotificationStateOptions): () => Promise<void> {
    if (!this.copy) return started(Promise.reject(new Error("the snapshot thread's copy of the engine does not follow")), () => undefined);
    this.notesCopy = true;
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return started(this.thread.seedNotes(path, pos, own, options), () => (this.notesCopy = false));
  }

  /** As takeLive, for the notifications' copy (which must follow: followingNotes). */
  takeNotes(pos: number, path: string): () => Promise<void> {
    const written = this.followingNotes ? this.thread.writeFollowedNotes(path, pos) : Promise.reject(new Error('no snapshot of the notifications: their copy does not follow'));
    return started(written, () => (this.notesCopy = false));
  }

  /** Records made durable, in log order, for the snapshot thread's copy; nothing while no copy follows. */
  followed(records: readonly LogRecord[]): void {
    if (this.copy) this.thread.follow(records.map(commandRecordOf));
  }

  /**
   * Takes the snapshot at `pos`, now (at exactly that position): asks the snapshot thread's copy for it while
   * the copy follows, else exports `engine`, which holds the calling thread. Returns the function that writes
   * it, to call once the previous snapshot is written, resolving with the path. A copy that cannot give it (it
   * diverged, or its thread was restarted) fails that snapshot, and the next ones are exported.
   */
  take(pos: number, engine: Engine): () => Promise<string> {
    if (this.copy) return started(this.writeFollowed(pos), () => (this.copy = false));
    const exported = exportSnapshot(engine);
    return () => this.write(pos, exported);
  }

  /**
   * Writes the snapshot of the snapshot thread's copy, which must hold exactly position `pos` (every record
   * up to it sent, none after). Rejects when the copy cannot give it (it diverged, or the thread was
   * restarted): the caller then goes back to write().
   */
  async writeFollowed(pos: number): Promise<string> {
    const path = this.pathOf(pos);
    // Sent before anything is awaited: the copy takes it when the message arrives, so it must come before the
    // records of the next batch (the thread creates the directory itself).
    await this.thread.writeFollowed(path, pos);
    await this.prune(pos);
    return path;
  }

  private pathOf(pos: number): string {
    return join(this.dir, `snapshot-${String(pos).padStart(20, '0')}.json`);
  }

  /** Stops the snapshot thread; a snapshot being written fails (its temporary file is removed by the next). */
  close(): Promise<void> {
    return this.thread.close();
  }

  /** Snapshot file names, newest first. */
  private async names(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => NAME.test(n)).sort().reverse();
  }

  /**
   * After the snapshot at `written` is in place: keeps the newest `keep`, and removes the temporary files a
   * crash left of snapshots up to it. A later one's temporary file may be a write in progress (the thread
   * writes them in order), so it stays.
   */
  private async prune(written: number): Promise<void> {
    const names = await this.names();
    for (const name of names.slice(this.keep)) await rm(join(this.dir, name), { force: true });
    for (const name of await readdir(this.dir)) {
      const pos = TEMP.exec(name)?.[1];
      if (pos !== undefined && Number(pos) <= written) await rm(join(this.dir, name), { force: true });
    }
  }

  /**
   * The newest snapshot that parses and covers at most `maxPos` (a snapshot beyond the end of the log cannot
   * be used); with the files skipped on the way and why.
   */
  async latest(maxPos = Number.POSITIVE_INFINITY): Promise<{ snapshot: SnapshotFile | undefined; skipped: string[] }> {
    const skipped: string[] = [];
    for (const name of await this.names()) {
      const path = join(this.dir, name);
      try {
        const parsed = JSON.parse(await readFile(path, 'utf8')) as SnapshotFile;
        if (parsed.format !== SNAPSHOT_FILE_FORMAT) {
          skipped.push(`${name}: snapshot file format ${String(parsed.format)} is not supported`);
          continue;
        }
        if (parsed.pos > maxPos) {
          skipped.push(`${name}: covers position ${parsed.pos}, beyond the end of the log (${maxPos})`);
          continue;
        }
        return { snapshot: parsed, skipped };
      } catch (error) {
        skipped.push(`${name}: unreadable (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    return { snapshot: undefined, skipped };
  }
}
