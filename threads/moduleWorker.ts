// Worker threads whose module sits beside the caller's: compiled, `<name>.js`; from TypeScript sources (tests,
// `node --import tsx`), `<name>.ts`, loaded by a thread that registers tsx's loader itself first. Node 20 does
// not give a worker the loader hooks its parent registered with --import, so without this a process run from
// sources could start no worker at all (the snapshot thread, the header edge, signature checks and replay
// would each fall back or fail). Compiled code never takes the second way.

import { Worker, type WorkerOptions } from 'node:worker_threads';

export function moduleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const url = new URL(`./${name}.ts`, callerUrl).href;
  const source = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url)}); })`;
  return new Worker(source, { ...options, eval: true });
}
