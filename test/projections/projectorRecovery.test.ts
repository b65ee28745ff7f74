// Crash recovery when some of the pending batch's rows have landed and merges have since kept only them
// (projections/recovery.ts): for every point in the batch's insert sequence, a projector that dies there,
// whose tables are then merged (OPTIMIZE ... FINAL keeps only each key's latest row), is completed by a new
// projector into exactly the tables of a projection that never failed.

import t from 'tap';
import { Projector } from '../../projections/projector.js';
import { PROJECTED_TABLES } from '../../projections/schema.js';
import { FEE_ACCOUNT, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { statementByStatement } from '../support/statementByStatement.js';

const VERSIONED = ['orders', 'positions', 'engine_markets', 'price_history', 'latest_prices'];

t.test('a crash after any insert of a batch, then merges: the restart completes it exactly', async (t) => {
  // Listing and trading all through the log, so that batches change every builder.
  const session = await loggedSession([...sessionFor(303, 300), ...crossingCommands(150)]);
  const reference = await freshDatabase();
  const clean = new Projector(reference.ch, reference.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 60 });
  await clean.start();
  await clean.catchUp();
  const expected = await dumpTables(reference.ch, reference.db);

  for (const [cut, table] of PROJECTED_TABLES.entries()) {
    const { ch, db } = await freshDatabase();
    // Batch 4: let the inserts up to and including `table` land, then die (inside the commit's one call, in
    // embedded mode: between two of its statements).
    let batch = 0;
    let died = false;
    const dying = statementByStatement(ch, (statement) => {
      if (statement.startsWith(`INSERT INTO ${db}.projection_progress `)) batch += 1;
      const landed = PROJECTED_TABLES.findIndex((name) => statement.startsWith(`INSERT INTO ${db}.${name} `));
      if (batch === 4 && landed >= cut && !died) {
        died = true;
        throw new Error(`died after ${table} (scripted)`);
      }
    });
    const first = new Projector(dying, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 60 });
    await first.start();
    await t.rejects(first.catchUp(), /scripted/, `died in batch 4 at or after ${table}`);
    for (const v of VERSIONED) await ch.command({ query: `OPTIMIZE TABLE ${db}.${v} FINAL` });
    const second = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 60 });
    await second.start();
    await second.catchUp();
    t.same(await dumpTables(ch, db), expected, `died after ${table}, tables merged: the same tables as without the crash`);
  }
});
