// The benches' description of the host CPU (bench/machineKind.ts): the first processor's model name, family, model,
// stepping and cache size from /proc/cpuinfo, so that hosts reporting the same bare model name read apart.

import t from 'tap';
import { cpuDescription, describeCpu, machineDescription, parseCpuInfo } from '../../bench/machineKind.js';

const BLOCK = (model: number, cacheKb: number): string =>
  `processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: ${model}\nmodel name\t: Intel(R) Xeon(R) Processor\nstepping\t: 1\ncpu MHz\t\t: 2600.000\ncache size\t: ${cacheKb} KB\n`;

t.test('the first processor\'s fields; a second processor\'s block is not read', async (t) => {
  const kind = parseCpuInfo(`${BLOCK(167, 491520)}\n${BLOCK(143, 107520)}`);
  t.same(kind, { modelName: 'Intel(R) Xeon(R) Processor', family: 6, model: 167, stepping: 1, cacheKb: 491520 });
  t.equal(describeCpu(kind, 'x'), 'Intel(R) Xeon(R) Processor (family 6 model 167 stepping 1, 480 MB cache)');
});

t.test('two hosts with the same model name read apart', async (t) => {
  const a = describeCpu(parseCpuInfo(BLOCK(167, 491520)), 'x');
  const b = describeCpu(parseCpuInfo(BLOCK(143, 107520)), 'x');
  t.not(a, b);
  t.match(b, /model 143 .*105 MB cache/);
});

t.test('missing fields: what is there, or the fallback name alone', async (t) => {
  t.equal(describeCpu(parseCpuInfo(''), 'AMD EPYC'), 'AMD EPYC');
  t.equal(describeCpu(parseCpuInfo('model name\t: Some CPU\ncache size\t: 512 KB\n'), 'x'), 'Some CPU (512 KB cache)');
  t.equal(describeCpu(parseCpuInfo('model name\t: Some CPU\ncpu family\t: 25\nmodel\t\t: 1\n'), 'x'), 'Some CPU (family 25 model 1)');
});

t.test('this machine is described by a non-empty phrase', async (t) => {
  const d = cpuDescription();
  t.ok(d.length > 0, d);
  t.match(machineDescription(), /^.+, \d+ cores, Node v\d+/, 'the machine phrase: CPU, cores, Node');
});
