// The projector's spacing of commits against a lag budget (projections/commitSpacing.ts): the prediction of the
// next commit's duration, and the wait that keeps a record's time from the log to its commit within the budget.

import t from 'tap';
import { CommitDurations, waitWithinBudget } from '../../projections/commitSpacing.js';

t.test('the next commit is predicted to take as long as the longest of the last three', async (t) => {
  const durations = new CommitDurations();
  t.equal(durations.predicted, 0, 'nothing committed yet');
  durations.add(40);
  durations.add(120);
  durations.add(60);
  t.equal(durations.predicted, 120);
  durations.add(50);
  t.equal(durations.predicted, 120, 'the 120 ms commit is still among the last three');
  durations.add(70);
  t.equal(durations.predicted, 70, 'it has left them');
});

t.test('the wait ends where the next cut plus its commit reaches the budget after this cut', async (t) => {
  // Cut at 1,000, commit took 150 (now 1,150), next predicted 150, budget 800: cut again at 1,650.
  t.equal(waitWithinBudget(800, 1_000, 1_150, 150), 500);
  // The least interval already waited out part of it.
  t.equal(waitWithinBudget(800, 1_000, 1_450, 150), 200);
  t.equal(waitWithinBudget(800, 1_000, 1_650, 150), 0, 'the time has come');
  t.equal(waitWithinBudget(800, 1_000, 1_300, 900), 0, 'commits longer than the budget: no wait at all');
});
