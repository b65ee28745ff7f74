// The process the projector crash test kills: projects a journal into an embedded ClickHouse in small
// batches, announcing each committed batch to its parent.

import { Journal } from '../../log/journal/journal.js';
import { openClickHouse } from '../../storage/clickhouse.js';
import { Projector } from '../../projections/projector.js';
import { DEFAULT_ENGINE_CONFIG } from '../../engine/index.js';

const [journalDir, dataDir] = process.argv.slice(2) as [string, string];
const journal = await Journal.open({ dir: journalDir, segmentBytes: 8 << 20 });
const ch = await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'exchange' });
const projector = new Projector(ch, 'exchange', journal, {
  feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount,
  maxBatch: 23,
  onBatch: (from, to) => process.send?.({ kind: 'batch', from, to }),
});
await projector.start();
process.send?.({ kind: 'started', pos: projector.position });
await projector.catchUp();
process.send?.({ kind: 'done', pos: projector.position });
await journal.close();
await ch.close();
process.exit(0);
