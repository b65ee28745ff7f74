// The engine service with --log-backend kafka: commands made durable in the topic survive a restart
// (snapshot on local disk + replay from Kafka) with the same position and state hash.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config/index.js';
import { startEngineService } from '../../host/engineService.js';
import type { Submission } from '../../host/engineHost.js';
import { sessionCommands } from '../support/records.js';
import { kafkaBrokers, uniqueTopic } from '../support/kafkaBroker.js';

t.test('stop and start again on the same Kafka topic', async (t) => {
  const brokers = await kafkaBrokers();
  const dataDir = mkdtempSync(join(tmpdir(), 'service-kafka-'));
  const loaded = parseConfig(['--data-dir', dataDir, '--log-backend', 'kafka', '--kafka-brokers', brokers.join(','), '--kafka-topic', uniqueTopic('service'), '--snapshot-interval-events', '1000000000'], {});
  if (loaded.kind !== 'config') throw new Error('config did not load');
  const first = await startEngineService(loaded.config);
  const subs = sessionCommands(800).map(({ time: _t, ...rest }) => rest as Submission);
  for (let i = 0; i < subs.length; i += 100) {
    await Promise.all(subs.slice(i, i + 100).map((s) => first.host.submit(s)));
    if (i === 300) await first.host.snapshotNow();
  }
  const hash = first.host.engine.stateHash();
  const position = first.host.position;
  await first.host.idle();
  // No graceful close: the next start must replay from Kafka after the snapshot taken halfway.
  await first.log.close();
  const second = await startEngineService(loaded.config);
  t.equal(second.recovery.pos, position, `recovered to position ${position}`);
  t.ok(second.recovery.snapshotPos > 0 && second.recovery.replayed > 0, `snapshot at ${second.recovery.snapshotPos}, ${second.recovery.replayed} records replayed from Kafka`);
  t.equal(second.host.engine.stateHash(), hash, 'the same state');
  await second.close();
});
