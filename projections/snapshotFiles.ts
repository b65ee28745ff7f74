// A directory of snapshot files of one in-memory state (the read model's, projections/live/liveSnapshot.ts; the
// notifications', projections/notifications/notificationSnapshots.ts): `<prefix>-<pos>.v8`, the position
// zero-padded so that names sort by it, each written to a temporary file, fsynced and renamed
// (log/durableFile.ts), the newest `keep` kept. Reading takes the newest file that reads back and covers no
// position beyond the end of the log, skipping the others with the reason.

import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurably } from '../log/durableFile.js';

export class SnapshotFiles<T extends { readonly pos: number }> {
  private readonly name: RegExp;

  constructor(
    readonly dir: string,
    private readonly prefix: string,
    /** Reads a file's bytes; throws when they are not a snapshot of the expected format. */
    private readonly read: (bytes: Buffer) => T,
    private readonly keep = 2,
  ) {
    this.name = new RegExp(`^${prefix}-(\\d{20})\\.v8$`);
  }

  /** Writes a snapshot's bytes as covering `pos`, then prunes the older ones; resolves with the file's path. */
  async write(pos: number, bytes: Buffer): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const path = this.pathOf(pos);
    await writeFileDurably(path, bytes);
    await this.prune();
    return path;
  }

  /** Where the snapshot covering `pos` is written (by write(), or by another thread). */
  pathOf(pos: number): string {
    return join(this.dir, `${this.prefix}-${String(pos).padStart(20, '0')}.v8`);
  }

  /** Keeps the newest `keep` snapshots (after one was written elsewhere than by write()). */
  async prune(): Promise<void> {
    const names = await this.names();
    for (const name of names.slice(this.keep)) await rm(join(this.dir, name), { force: true });
  }

  private async names(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => this.name.test(n)).sort().reverse();
  }

  /** The newest snapshot that reads back and covers at most `maxPos`; with the files skipped on the way and why. */
  async latest(maxPos = Number.POSITIVE_INFINITY): Promise<{ snapshot: T | undefined; skipped: string[] }> {
    const skipped: string[] = [];
    for (const name of await this.names()) {
      try {
        const snapshot = this.read(await readFile(join(this.dir, name)));
        if (snapshot.pos > maxPos) {
          skipped.push(`${name}: covers position ${snapshot.pos}, beyond the end of the log (${maxPos})`);
          continue;
        }
        return { snapshot, skipped };
      } catch (error) {
        skipped.push(`${name}: unreadable (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    return { snapshot: undefined, skipped };
  }
}
