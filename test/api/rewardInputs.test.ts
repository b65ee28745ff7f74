// The rewards endpoints' date parameter: the pattern the OpenAPI document states admits exactly the days the
// handler reads (engine dayOfText), leap days included, so a request the document admits is never refused.

import t from 'tap';
import { DATE_PATTERN } from '../../api/rewards/rewardUserRoutes.js';
import { dayOfText } from '../../engine/index.js';

t.test('DATE_PATTERN admits exactly the real calendar days', async (t) => {
  const re = new RegExp(DATE_PATTERN);
  let checked = 0;
  for (let y = 0; y <= 9999; y += y < 2101 ? 1 : 97) {
    for (let m = 0; m <= 13; m++) {
      for (let d = 0; d <= 32; d++) {
        const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        checked += 1;
        if (re.test(text) !== (dayOfText(text) !== undefined)) t.fail(`${text}: the pattern says ${re.test(text)}, the handler ${dayOfText(text) !== undefined}`);
      }
    }
  }
  for (const text of ['2024-02-29', '2000-02-29', '2026-12-31']) t.ok(re.test(text), text);
  for (const text of ['2023-02-29', '1900-02-29', '2026-13-01', '2026-1-01', '20260101']) t.notOk(re.test(text), text);
  t.ok(checked > 100_000, `${checked} strings checked`);
});
