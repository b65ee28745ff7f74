// Operations per second of a check run over a list of samples, for about `seconds` after a short warm-up.
// `one` returns whether the sample checked out; a false is a wrong answer and fails the benchmark.

export function opsPerSecond<S>(list: readonly S[], seconds: number, one: (s: S) => boolean, describe: (s: S) => string): number {
  const run = (ms: number): { ops: number; ms: number } => {
    const start = performance.now();
    let ops = 0;
    while (performance.now() - start < ms) {
      for (let i = 0; i < 16; i++) {
        const s = list[ops % list.length] as S;
        if (!one(s)) throw new Error(`wrong recovery for ${describe(s)}`);
        ops += 1;
      }
    }
    return { ops, ms: performance.now() - start };
  };
  run(Math.min(300, seconds * 200));
  const { ops, ms } = run(seconds * 1000);
  return (ops / ms) * 1000;
}
