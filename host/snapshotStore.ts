// Engine snapshots on local disk, each written atomically together with the log position it covers and the
// state hash at that position: write to a temporary file, fsync it, rename it into place, fsync the
// directory. A torn or unreadable snapshot is skipped in favour of the previous one. The newest `keep`
// snapshots are kept.

import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineSnapshot } from '../engine/index.js';
import { writeFileDurably } from '../log/durableFile.js';

export const SNAPSHOT_FILE_FORMAT = 1;

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

export class SnapshotStore {
  constructor(
    readonly dir: string,
    private readonly keep = 3,
  ) {}

  async write(snapshot: SnapshotFile): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const name = `snapshot-${String(snapshot.pos).padStart(20, '0')}.json`;
    const path = join(this.dir, name);
    await writeFileDurably(path, JSON.stringify(snapshot));
    await this.prune();
    return path;
  }

  /** Snapshot file names, newest first. */
  private async names(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => NAME.test(n)).sort().reverse();
  }

  private async prune(): Promise<void> {
    const names = await this.names();
    for (const name of names.slice(this.keep)) await rm(join(this.dir, name), { force: true });
    for (const name of await readdir(this.dir)) if (name.endsWith('.json.tmp')) await rm(join(this.dir, name), { force: true });
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
