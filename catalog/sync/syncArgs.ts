// Arguments of `npm run catalog:sync` that are not settings of the service.

/** Splits `--import <file>` / `--import=<file>` off the settings. */
export function splitImportFlag(argv: readonly string[]): { importPath?: string; rest: string[]; problem?: string } {
  const rest: string[] = [];
  let importPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--import' || arg.startsWith('--import=')) {
      const value = arg === '--import' ? argv[++i] : arg.slice('--import='.length);
      if (value === undefined || value === '') return { rest, problem: '--import needs the path of a JSON dump' };
      importPath = value;
    } else rest.push(arg);
  }
  return { importPath, rest };
}

/** Splits `--reconcile` (reconcile with the upstream in this run, whatever the interval says) off the rest. */
export function splitReconcileFlag(argv: readonly string[]): { reconcile: boolean; rest: string[] } {
  const rest = argv.filter((arg) => arg !== '--reconcile');
  return { reconcile: rest.length !== argv.length, rest };
}
