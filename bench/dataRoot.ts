// Where the benches' servers keep their data directories: `pmx-bench-data` under the system's temporary
// directory, marked as the top of a directory hierarchy for ext4's Orlov allocator (`chattr +T`) where the
// filesystem takes it. Each server makes its data directory under it (its TMPDIR) and deletes it on exit.
//
// Why: on ext4 without a journal, a file created near files deleted within the last one to six minutes costs
// system time in proportion to them (`npm run bench:file-churn`, docs/benchmarks.md "Files created and
// deleted"). A subdirectory of an ordinary directory is placed in its parent's block group, so a server started
// right after another one's data was deleted there would pay for it: its ClickHouse share of an order rose from
// ~50 to ~100 µs at saturation. Under a top directory, each new data directory goes to a block group of its own
// choosing, and its files with it, so a run no longer pays for the one before it. Where `chattr` is missing or
// the filesystem refuses the flag, the directory is used as it is.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The data root, made on first use; `spread` says whether it carries the top-directory flag. */
export function benchDataRoot(): { readonly dir: string; readonly spread: boolean } {
  const dir = join(tmpdir(), 'pmx-bench-data');
  mkdirSync(dir, { recursive: true });
  const flagged = spawnSync('chattr', ['+T', dir], { stdio: 'ignore' });
  return { dir, spread: flagged.status === 0 };
}
