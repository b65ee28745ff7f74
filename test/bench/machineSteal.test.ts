// The benches' reading of the hypervisor's steal (bench/machineSteal.ts): the first line of /proc/stat, and the
// stolen share of the time the VM's CPUs wanted to run, idle time left out.

import t from 'tap';
import { cpuTimes, parseCpuLine, stealPercent } from '../../bench/machineSteal.js';

const STAT = (user: number, idle: number, steal: number): string =>
  `cpu  ${user} 10 200 ${idle} 40 0 50 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n`;

t.test('the cpu line: run time (user, nice, system, irq, softirq) and steal; idle and iowait left out', async (t) => {
  t.same(parseCpuLine(STAT(1000, 5000, 300)), { busy: 1000 + 10 + 200 + 0 + 50, steal: 300 });
  t.equal(parseCpuLine('intr 1 2 3\n'), undefined, 'no cpu line');
  t.equal(parseCpuLine('cpu  1 2 3\n'), undefined, 'a line of an older kernel without steal');
});

t.test('steal is a share of the time wanted, not of all time', async (t) => {
  const a = parseCpuLine(STAT(1000, 5000, 300));
  // 300 ticks run and 100 stolen, while 10,000 ticks went idle: 25% of the time wanted.
  const b = parseCpuLine(STAT(1300, 15000, 400));
  t.equal(stealPercent(a, b), 25);
  t.equal(stealPercent(a, a), undefined, 'no time wanted between the readings');
  t.equal(stealPercent(undefined, b), undefined, 'a reading missing');
});

t.test('on Linux the machine is read, and its steal is a percentage', { skip: process.platform === 'linux' ? false : 'needs Linux /proc' }, async (t) => {
  const from = cpuTimes();
  t.ok(from !== undefined && from.busy > 0, 'the machine has run');
  const end = Date.now() + 30;
  while (Date.now() < end) Math.sqrt(Math.random());
  const share = stealPercent(from, cpuTimes());
  t.ok(share === undefined || (share >= 0 && share <= 100), `steal ${share}% over a short busy loop`);
});
