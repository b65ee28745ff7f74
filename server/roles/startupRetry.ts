// Start-up of a role whose dependencies (Kafka, ClickHouse, the engine) may not be up yet, as in a cluster
// starting all at once: each attempt that fails is logged with its reason, and tried again with backoff until
// it succeeds or the process is asked to stop.

import type { Logger } from 'pino';

export class StartupAborted extends Error {
  override readonly name = 'StartupAborted';
}

export async function retrying<T>(what: string, attempt: () => Promise<T>, logger: Logger, signal: AbortSignal): Promise<T> {
  let delay = 500;
  for (let n = 1; ; n++) {
    if (signal.aborted) throw new StartupAborted(`stopped while waiting for ${what}`);
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted) throw new StartupAborted(`stopped while waiting for ${what}`);
      logger.warn({ attempt: n, err: error }, `${what} failed: ${(error as Error).message}; retrying in ${delay / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      delay = Math.min(delay * 2, 5_000);
    }
  }
}
