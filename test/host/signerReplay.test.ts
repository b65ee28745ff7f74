// Signer authorisations through the engine host and the embedded journal: the commands and their events are
// logged like any other, and a replay of the journal alone (on the reader thread and on this one) rebuilds
// the same state, hash and answers.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';
import { recover } from '../../host/recovery.js';

const SAFE = '0x' + '5afe'.repeat(10);
const PROXY = '0x' + '9'.repeat(40);
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

t.test('authorisations are logged and a journal replay reproduces them', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'signers-')), 'journal');
  const journal = await Journal.open({ dir, segmentBytes: 1 << 20 });
  let clock = 1_700_000_000_000;
  const engine = new Engine();
  const host = new EngineHost(engine, journal, { maxBatch: 4, clock: () => (clock += 1) });
  const submissions: Submission[] = [
    { type: 'Deposit', account: SAFE, amount: 5_000_000 },
    { type: 'AuthorizeSigner', maker: SAFE, signer: ALICE },
    { type: 'AuthorizeSigner', maker: SAFE, signer: BOB },
    { type: 'AuthorizeSigner', maker: SAFE, signer: ALICE },
    { type: 'AuthorizeSigner', maker: PROXY, signer: ALICE },
    { type: 'RevokeSigner', maker: SAFE, signer: BOB },
    { type: 'RevokeSigner', maker: SAFE, signer: BOB },
    { type: 'AuthorizeSigner', maker: SAFE, signer: SAFE },
  ];
  const replies = await Promise.all(submissions.map((s) => host.submit(s)));
  t.same(replies.map((events) => events.map((e) => (e.type === 'CommandRejected' ? e.code : e.type))), [
    ['CollateralDeposited'], ['SignerAuthorized'], ['SignerAuthorized'], ['SIGNER_ALREADY_AUTHORIZED'], ['SignerAuthorized'],
    ['SignerRevoked'], ['SIGNER_NOT_AUTHORIZED'], ['INVALID_COMMAND'],
  ]);
  await host.idle();
  const hash = engine.stateHash();
  for (const pipelined of [true, false]) {
    const restored = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined });
    t.equal(restored.replayed, submissions.length, `${pipelined ? 'reader thread' : 'one thread'}: every record replayed`);
    t.equal(restored.engine.stateHash(), hash, 'the same state hash');
    t.same(restored.engine.signersOf(SAFE), [ALICE]);
    t.same(restored.engine.signersOf(PROXY), [ALICE]);
  }
  await journal.close();
});
