// The projector on its own thread (projections/projectorThread.ts) against the projector on this one: the
// real engine's records in a real journal, the thread told only the durable end, its ClickHouse calls relayed
// to this thread's client (chDB): it projects exactly up to the published end and no further, the tables equal
// those of a projector reading the same journal here, rows sent byte for byte, read-your-writes waits answer
// when the position is committed, a stop records the progress, and a projector whose ClickHouse refuses it
// fails to start with ClickHouse's reason.

import t from 'tap';
import { Projector } from '../../projections/projector.js';
import { ProjectorThread } from '../../projections/projectorThread.js';
import { readProgress } from '../../projections/progress.js';
import { FEE_ACCOUNT, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor, notingInserts } from '../support/projectionFixtures.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

t.test('the thread projects up to the published end, as a projector on this thread does', async (t) => {
  const session = await loggedSession([...sessionFor(7, 600), ...crossingCommands(400)]);
  const last = session.journal.lastPos;
  const half = Math.floor(last / 2);
  const onThread = await freshDatabase();
  const here = await freshDatabase();
  const sentThread: string[] = [];
  const sentHere: string[] = [];
  const failures: Error[] = [];
  const thread = ProjectorThread.launch({
    client: notingInserts(onThread.ch, onThread.db, sentThread),
    db: onThread.db,
    journalDir: session.journal.dir,
    durableEnd: half,
    options: { feeAccount: FEE_ACCOUNT, maxBatch: 97 },
    onFailure: (error) => failures.push(error),
  });
  await thread.ready;
  t.equal(thread.position, 0, 'a fresh database: nothing committed yet');
  thread.run();
  await thread.waitFor(half);
  await sleep(300);
  t.equal(thread.position, half, 'it stops at the published end though the journal holds more');
  t.equal(thread.lag, 0);
  await t.rejects(thread.waitFor(half + 1, 200), /did not reach position/, 'a wait past the end times out');
  thread.durable(last);
  await thread.waitFor(last);
  t.equal(thread.position, last);
  await thread.stop(last);
  t.same(await readProgress(onThread.ch, onThread.db, 'main'), { pos: last, pendingFrom: 0, pendingTo: 0 }, 'the stop recorded the progress');
  t.same(failures, []);

  // The same journal read by a projector on this thread, in the same batches.
  const projector = new Projector(notingInserts(here.ch, here.db, sentHere), here.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 97 });
  await projector.start();
  await projector.catchUpTo(session.journal, half);
  await projector.catchUpTo(session.journal, last);
  await projector.recordProgress();
  t.ok(sentHere.length > 10, `${sentHere.length} inserts`);
  t.same(sentThread, sentHere, 'the same rows sent, byte for byte');
  t.same(await dumpTables(onThread.ch, onThread.db), await dumpTables(here.ch, here.db), 'the same tables');
  await session.journal.close();
});

t.test('a restarted thread goes on from the committed progress', async (t) => {
  const session = await loggedSession(crossingCommands(300));
  const { ch, db } = await freshDatabase();
  const settings = { client: ch, db, journalDir: session.journal.dir, options: { feeAccount: FEE_ACCOUNT }, onFailure: () => undefined };
  const first = ProjectorThread.launch({ ...settings, durableEnd: 120 });
  await first.ready;
  first.run();
  await first.stop(120);
  const second = ProjectorThread.launch({ ...settings, durableEnd: 300 });
  await second.ready;
  t.equal(second.position, 120, 'restored at the first one\'s progress');
  second.run();
  await second.waitFor(300);
  await second.stop(300);
  const reference = await freshDatabase();
  const projector = new Projector(reference.ch, reference.db, session.journal, { feeAccount: FEE_ACCOUNT });
  await projector.start();
  await projector.catchUp();
  t.same(await dumpTables(ch, db), await dumpTables(reference.ch, reference.db), 'every fill once, the same tables');
  await session.journal.close();
});

t.test('a ClickHouse that refuses the projector fails its start with the reason', async (t) => {
  const session = await loggedSession(crossingCommands(10));
  const { ch } = await freshDatabase();
  const refusing = new Proxy(ch, {
    get(client, key, receiver) {
      if (key === 'command' || key === 'query') return async () => Promise.reject(new Error('the disk is full (test)'));
      return Reflect.get(client, key, receiver);
    },
  });
  const thread = ProjectorThread.launch({ client: refusing, db: 'nowhere', journalDir: session.journal.dir, durableEnd: 10, options: { feeAccount: FEE_ACCOUNT }, onFailure: () => undefined });
  await t.rejects(thread.ready, /the disk is full \(test\)/);
  await t.rejects(thread.waitFor(5, 1_000), /the disk is full/, 'and a wait on it fails at once');
  await session.journal.close();
});
