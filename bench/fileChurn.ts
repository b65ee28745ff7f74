// `npm run bench:file-churn`: what a file created on the data directory's filesystem costs, fresh and right after
// other files there were deleted. ClickHouse writes each part as a directory of about ten small files and deletes
// them after merges; ext4 without a journal (the filesystem of this project's machines: /proc/fs/jbd2 is empty)
// skips every free inode freed within the last one to six minutes when it allocates one, scanning past them
// one by one (the kernel's find_inode_bit() and recently_deleted()), so each file created costs system time in
// proportion to the files deleted shortly before. On a filesystem with a journal the scan does not happen and
// the two phases cost about the same.
//
// Phases, in a fresh directory under BENCH_DIR (default: the system's temporary directory, on the filesystem
// where bench:orders keeps its servers' data, bench/dataRoot.ts): `fresh` creates BENCH_FILES (2,000) files as
// ClickHouse writes parts (a directory of ten 200-byte files, renamed when complete); `afterDelete` deletes
// BENCH_DELETE (20,000) files made for the purpose, then creates the same files again. Reports CPU and system
// time per file created in each phase and their ratio. It deletes what it made when it ends, so a bench started
// within minutes of it pays for that too. The last line is one JSON object: {bench: 'file-churn', dir, journal,
// files, deleted, fresh: {cpuUs, sysUs}, afterDelete: {cpuUs, sysUs}, ratio}.

import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = process.env.BENCH_DIR ?? tmpdir();
const FILES = Number(process.env.BENCH_FILES ?? 2000);
const DELETE = Number(process.env.BENCH_DELETE ?? 20000);
const PER_PART = 10;
const payload = Buffer.alloc(200, 7);

interface Cost {
  readonly cpuUs: number;
  readonly sysUs: number;
}

/** Creates `files` files as parts of PER_PART each; returns the CPU per file. */
function createParts(dir: string, files: number): Cost {
  mkdirSync(dir, { recursive: true });
  const before = process.cpuUsage();
  for (let part = 0; part < files / PER_PART; part++) {
    const tmp = join(dir, `tmp_insert_${part}`);
    mkdirSync(tmp);
    for (let i = 0; i < PER_PART; i++) {
      const fd = openSync(join(tmp, `f${i}.bin`), 'w');
      writeSync(fd, payload);
      closeSync(fd);
    }
    renameSync(tmp, join(dir, `all_${part}`));
  }
  const used = process.cpuUsage(before);
  return { cpuUs: (used.user + used.system) / files, sysUs: used.system / files };
}

/** Whether any filesystem of this machine has a jbd2 journal (Linux; undefined elsewhere). */
function hasJournal(): boolean | undefined {
  if (!existsSync('/proc/fs/jbd2')) return undefined;
  return readdirSync('/proc/fs/jbd2').length > 0;
}

const work = mkdtempSync(join(ROOT, 'bench-file-churn-'));
try {
  const fresh = createParts(join(work, 'fresh'), FILES);
  createParts(join(work, 'doomed'), DELETE);
  rmSync(join(work, 'doomed'), { recursive: true, force: true });
  const afterDelete = createParts(join(work, 'after'), FILES);
  const ratio = afterDelete.cpuUs / fresh.cpuUs;
  const journal = hasJournal();
  const us = (c: Cost): string => `${c.cpuUs.toFixed(1)} us of CPU per file (${c.sysUs.toFixed(1)} us system)`;
  console.log(`directory: ${work} (filesystems with a jbd2 journal on this machine: ${journal === undefined ? 'unknown' : journal ? 'some' : 'none'})`);
  console.log(`fresh: ${FILES} files created, ${us(fresh)}`);
  console.log(`after deleting ${DELETE} files: ${FILES} files created, ${us(afterDelete)}: ${ratio.toFixed(1)}x`);
  console.log(JSON.stringify({ bench: 'file-churn', dir: ROOT, journal: journal ?? null, files: FILES, deleted: DELETE, fresh, afterDelete, ratio: Number(ratio.toFixed(2)) }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
