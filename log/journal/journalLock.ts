// One process owns a journal directory at a time: a second opener would run tail recovery on a journal that
// is being written. The lock is a file holding the owner's pid; a lock left by a process that no longer
// exists (killed, crashed) is taken over, so a restart after SIGKILL needs no cleanup.

import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockJournal(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.sync();
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(`journal ${dir} is in use by process ${owner}; one process may own it at a time`);
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock journal ${dir}`);
}
