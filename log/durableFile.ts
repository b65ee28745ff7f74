// Files made durable on local disk: the journal's segments are created with syncDirectory, and snapshots (the
// engine's, host/snapshotStore.ts; the read model's, projections/live/liveSnapshot.ts) are written whole with
// writeFileDurably, so a crash leaves either the old file set or the new complete file, never a torn one.

import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/** fsync of a directory: the names created or renamed in it survive a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `data` to `path` atomically and durably: a temporary file, fsynced, renamed into place, the directory fsynced. */
export async function writeFileDurably(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDirectory(dirname(path));
}
