// The process the crash test kills: recovers the engine from <dir> (snapshot + journal), then serves
// commands from its parent over IPC through the real EngineHost, replying only once they are durable.
// Messages in:  {kind:'submit', id, submission} | {kind:'verify'}
// Messages out: {kind:'ready', pos, hash} | {kind:'reply', id, events:[types]} | {kind:'error', id, message}
//               | {kind:'verified', recoveredHash, replayHash, accepted: Record<orderId, count>}

import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, type EngineEvent } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { recover } from '../../host/recovery.js';

type Message = { kind: 'submit'; id: number; submission: Submission } | { kind: 'verify' };

const dir = process.argv[2] as string;
const journal = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
const store = new SnapshotStore(join(dir, 'snapshots'));
const { engine, pos } = await recover(journal, store, { engineConfig: DEFAULT_ENGINE_CONFIG });
const host = new EngineHost(engine, journal, { maxBatch: 200, clock: Date.now, snapshotEvery: 500, snapshots: store });
const send = (message: unknown): void => void process.send?.(message);

process.on('message', (message: Message) => {
  if (message.kind === 'submit') {
    host.submit(message.submission).then(
      (events: EngineEvent[]) => send({ kind: 'reply', id: message.id, events: events.map((e) => e.type) }),
      (error: Error) => send({ kind: 'error', id: message.id, message: error.message }),
    );
    return;
  }
  void (async () => {
    await host.idle();
    const accepted: Record<string, number> = {};
    for await (const record of journal.read(1)) {
      for (const e of record.events) if (e.type === 'OrderAccepted') accepted[e.orderId] = (accepted[e.orderId] ?? 0) + 1;
    }
    const replay = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG });
    send({ kind: 'verified', recoveredHash: engine.stateHash(), replayHash: replay.engine.stateHash(), accepted, lastPos: journal.lastPos });
  })();
});

send({ kind: 'ready', pos, hash: engine.stateHash() });
