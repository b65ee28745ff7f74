// The engine service on embedded defaults: commands made durable in the data directory survive a graceful
// restart exactly (same position and state hash), with a final snapshot written on close.

import t from 'tap';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config/index.js';
import { startEngineService } from '../../host/engineService.js';
import type { Submission } from '../../host/engineHost.js';
import { sessionCommands } from '../support/records.js';

t.test('stop and start again on the same data directory', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-'));
  const loaded = parseConfig(['--data-dir', dataDir], {});
  if (loaded.kind !== 'config') throw new Error('config did not load');
  const config = loaded.config;
  const first = await startEngineService(config);
  t.equal(first.recovery.pos, 0, 'a new data directory starts empty');
  const subs = sessionCommands(1_000).map(({ time: _t, ...rest }) => rest as Submission);
  await Promise.all(subs.map((s) => first.host.submit(s)));
  const hash = first.host.engine.stateHash();
  const position = first.host.position;
  await first.close();
  t.ok(readdirSync(join(dataDir, 'snapshots')).length >= 1, 'a snapshot was written on close');
  const second = await startEngineService(config);
  t.equal(second.recovery.pos, position);
  t.equal(second.recovery.replayed, 0, 'nothing to replay after the final snapshot');
  t.equal(second.host.engine.stateHash(), hash, 'the same state');
  await second.close();
});
