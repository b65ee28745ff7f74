// The whole service running inside the test process, as `npm start` runs it: engine host on a fresh
// journal, projector into this process's embedded ClickHouse (a fresh database: chDB allows one data
// directory per process), the demo catalog, and HTTP on a free port of 127.0.0.1. Rate limits are off
// unless a test turns them on.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfig, type Config } from '../../config/index.js';
import { startService, type RunningService } from '../../server/service.js';
import { freshDatabase } from './projectionFixtures.js';

export interface TestService {
  readonly baseUrl: string;
  readonly service: RunningService;
  close(): Promise<void>;
}

/**
 * The defaults, for a test: a data directory of its own, any port, no rate limits, logs and demo traders off, and
 * the chain's CPU affinity off (test processes share the machine's CPUs side by side; the suites of
 * server/chainAffinity.ts turn it on).
 */
export function testConfig(settings: Partial<Config> = {}): Config {
  const parsed = parseConfig([], {});
  if (parsed.kind !== 'config') throw new Error('default configuration is invalid');
  return { ...parsed.config, dataDir: mkdtempSync(join(tmpdir(), 'svc-')), httpPort: 0, rateLimit: false, logLevel: 'silent', demoTraders: false, chainAffinity: false, ...settings };
}

export async function startTestService(settings: Partial<Config> = {}): Promise<TestService> {
  const { ch, db } = await freshDatabase();
  const config = testConfig({ clickhouseDatabase: db, ...settings });
  const logger = pino({ level: process.env.PMX_TEST_LOG ?? config.logLevel });
  const service = await startService(config, logger, { clickhouse: ch });
  return { baseUrl: `http://127.0.0.1:${service.port}`, service, close: () => service.close() };
}
