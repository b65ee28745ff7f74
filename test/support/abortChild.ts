// A process with the embedded ClickHouse open, which aborts when its parent says so (fatalSignals.test.ts).
// argv: <mode> <dataDir>. Mode 'service' opens it as the service does (openClickHouse, which gives SIGABRT
// back to Node: storage/fatalSignals.ts); 'chdb' opens chDB directly, its fatal-signal handlers left in place.
// Messages out: 'ready' once a query has run. In: 'abort' (process.abort(), glibc's abort()).

import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { openClickHouse } from '../../storage/clickhouse.js';

const [mode, dataDir] = process.argv.slice(2) as [string, string];
if (mode === 'chdb') {
  const { createChdbConnection } = await import('chdb/connection');
  const client = createClient({ connection: createChdbConnection({ path: join(dataDir, 'clickhouse') }) } as unknown as Parameters<typeof createClient>[0]);
  await client.command({ query: 'SELECT 1' });
} else {
  await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'aborting' });
}
process.on('message', (message) => {
  if (message === 'abort') process.abort();
});
process.send?.('ready');
