// Gauges read asynchronously when /metrics is scraped: a value read is shown; a failed read shows NaN for that
// scrape (not known), never a 0 that looks like a measurement, and the next scrape reads again.

import t from 'tap';
import { ServiceMetrics } from '../../server/metrics.js';

t.test('an async gauge shows what it read, and NaN when the read fails', async (t) => {
  const metrics = new ServiceMetrics();
  let fail = false;
  metrics.asyncGauge('test_async_bytes', 'A test gauge.', async () => {
    if (fail) throw new Error('not reachable');
    return 1234;
  });
  t.match(await metrics.registry.metrics(), /^test_async_bytes 1234$/m);
  fail = true;
  t.match(await metrics.registry.metrics(), /^test_async_bytes nan$/im, 'unknown, not zero');
  fail = false;
  t.match(await metrics.registry.metrics(), /^test_async_bytes 1234$/m, 'read again at the next scrape');
});

t.test('a labelled async gauge shows the series read, and none when the read fails', async (t) => {
  const metrics = new ServiceMetrics();
  let series: (readonly [string, number])[] = [['pmx-a', 10], ['pmx-b', 20]];
  let fail = false;
  metrics.asyncLabelledGauge('test_thread_bytes', 'A test gauge.', 'thread', async () => {
    if (fail) throw new Error('not reachable');
    return series;
  });
  const text = await metrics.registry.metrics();
  t.match(text, /^test_thread_bytes\{thread="pmx-a"\} 10$/m);
  t.match(text, /^test_thread_bytes\{thread="pmx-b"\} 20$/m);
  series = [['pmx-b', 30]];
  const next = await metrics.registry.metrics();
  t.notMatch(next, /thread="pmx-a"/, 'a thread gone is no longer shown');
  t.match(next, /^test_thread_bytes\{thread="pmx-b"\} 30$/m);
  fail = true;
  t.notMatch(await metrics.registry.metrics(), /^test_thread_bytes\{/m, 'no series when the read fails');
});
