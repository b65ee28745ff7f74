// The kept leaderboards (projections/readModel/leaderboardBoards.ts): a board is computed once and answered
// while current; with maxAgeMs 0 a read after the projector moved waits for a new one; otherwise a board the
// projector moved past is answered until it is maxAgeMs old, then the next read starts its successor in the
// background; a board of a period is recomputed as its window slides; the least recently read leave first;
// warm() computes the all-time board before the first read.

import t from 'tap';
import { Projector } from '../../projections/projector.js';
import { readContext } from '../../projections/readModel/index.js';
import { LeaderboardBoards } from '../../projections/readModel/leaderboardBoards.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';

const session = await loggedSession(sessionFor(4, 200));
const { ch, db } = await freshDatabase();
const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
await projector.start();
await projector.catchUp();
t.teardown(() => session.journal.close());
let clock = 1_700_000_000_000;
let pos = projector.position;
const ctx = readContext(ch, db, { feeAccount: FEE_ACCOUNT, now: () => clock });
/** Waits until `boards` has computed `n` boards (a background computation finished). */
async function computedBy(boards: LeaderboardBoards, n: number): Promise<void> {
  for (let i = 0; i < 400 && boards.computed < n; i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

t.test('maxAgeMs 0: exact at every read', async (t) => {
  const boards = new LeaderboardBoards(ctx, () => pos, 0);
  const first = await boards.board('ALL', undefined, 'OVERALL');
  t.ok(first.byPnl.length > 0, `${first.byPnl.length} traders`);
  t.equal(await boards.board('ALL', undefined, 'OVERALL'), first, 'kept while the projector stays');
  t.equal(boards.computed, 1);
  pos += 1;
  const second = await boards.board('ALL', undefined, 'OVERALL');
  t.not(second, first, 'a new board once the projector moved');
  t.equal(second.pos, pos);
  await boards.board('DAY', undefined, 'OVERALL');
  await boards.board('DAY', undefined, 'OVERALL');
  t.equal(boards.computed, 4, 'a board of a period is computed at every read (its window slides)');
  pos -= 1;
});

t.test('warm(): the all-time board of every market is computed before anyone reads it', async (t) => {
  const boards = new LeaderboardBoards(ctx, () => pos, 1_000);
  boards.warm();
  boards.warm();
  const board = await boards.board('ALL', undefined, 'OVERALL');
  t.equal(boards.computed, 1, 'the first read got the warmed board: one computation');
  t.equal(board.pos, pos);
  t.ok(board.byPnl.length > 0);
  const exact = new LeaderboardBoards(ctx, () => pos, 0);
  exact.warm();
  t.equal(exact.computed, 0, 'maxAgeMs 0 (every read exact): nothing warmed');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(exact.computed, 0);
});

t.test('maxAgeMs 1000: answered while young, then refreshed in the background', async (t) => {
  const boards = new LeaderboardBoards(ctx, () => pos, 1_000);
  const first = await boards.board('ALL', undefined, 'OVERALL');
  pos += 1;
  clock += 500;
  t.equal(await boards.board('ALL', undefined, 'OVERALL'), first, 'the projector moved, but the board is young');
  clock += 600;
  t.equal(await boards.board('ALL', undefined, 'OVERALL'), first, 'old: still answered, its successor computed meanwhile');
  await computedBy(boards, 2);
  const next = await boards.board('ALL', undefined, 'OVERALL');
  t.not(next, first);
  t.equal(next.pos, pos);
  t.equal(boards.computed, 2);
  const day = await boards.board('DAY', undefined, 'OVERALL');
  clock += 1_000;
  t.equal(await boards.board('DAY', undefined, 'OVERALL'), day, 'a period board past its age is answered once more');
  await computedBy(boards, 4);
  t.not(await boards.board('DAY', undefined, 'OVERALL'), day, 'and then replaced (its window slid)');
  pos -= 1;
});

t.test('at most maxBoards kept, the least recently read leaving first', async (t) => {
  const boards = new LeaderboardBoards(ctx, () => pos, 60_000, 2);
  const all = await boards.board('ALL', undefined, 'OVERALL');
  await boards.board('WEEK', undefined, 'OVERALL');
  await boards.board('ALL', undefined, 'OVERALL');
  await boards.board('MONTH', undefined, 'OVERALL');
  t.equal(boards.computed, 3);
  t.equal(await boards.board('ALL', undefined, 'OVERALL'), all, 'read last but one: kept');
  await boards.board('WEEK', undefined, 'OVERALL');
  t.equal(boards.computed, 4, 'the week board had left');
});
