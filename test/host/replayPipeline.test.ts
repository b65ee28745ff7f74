// Replay through the reader thread gives the same engine as replay on one thread, and a corrupt frame the
// reader thread meets is raised with its file and offset.

import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { LogCorruptError } from '../../log/eventLog.js';
import { recover } from '../../host/recovery.js';
import { recordsFor, sessionCommands } from '../support/records.js';

const records = recordsFor(sessionCommands(3_000));

async function journalWith(dir: string): Promise<Journal> {
  const journal = await Journal.open({ dir, segmentBytes: 200_000 });
  for (let i = 0; i < records.length; i += 250) await journal.append(records.slice(i, i + 250));
  return journal;
}

t.test('pipelined and single-thread replay agree', async (t) => {
  const journal = await journalWith(mkdtempSync(join(tmpdir(), 'pipe-')));
  const piped = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined: true });
  const single = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined: false });
  t.equal(piped.pos, records.length);
  t.equal(piped.engine.stateHash(), single.engine.stateHash());
  await journal.close();
});

t.test('a corrupt frame met by the reader thread is raised with file and offset', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pipe-bad-'));
  const journal = await journalWith(dir);
  await journal.close();
  const first = join(dir, readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()[0] as string);
  const buf = readFileSync(first);
  buf[1000] = (buf[1000] ?? 0) ^ 0x40;
  writeFileSync(first, buf);
  const reopened = await Journal.open({ dir, segmentBytes: 200_000 });
  for (const pipelined of [true, false]) {
    const error = await recover(reopened, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined }).catch((e: unknown) => e);
    t.ok(error instanceof LogCorruptError, `pipelined=${pipelined}: LogCorruptError`);
    if (error instanceof LogCorruptError) t.equal(error.file, first);
  }
  await reopened.close();
});
