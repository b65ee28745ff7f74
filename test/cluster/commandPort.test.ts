// The engine's command port (cluster/commandServer.ts) and an API node's client of it (cluster/engineClient.ts)
// over real TCP, with a real engine host on a real journal: answers only once durable, each durable batch's
// records sent to the node before the answers of its commands, refusals of a wrong token, of lines that are
// not the protocol and of unknown commands (none reaches the engine), and a command whose connection is lost
// before its answer reported as unknown, never as a success.

import t from 'tap';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import { EngineHost } from '../../host/engineHost.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { startCommandServer } from '../../cluster/commandServer.js';
import { EngineClient, EngineUnavailableError } from '../../cluster/engineClient.js';
import { LineSplitter, MAX_LINE_BYTES } from '../../cluster/commandWire.js';
import type { CommandRecord } from '../../log/eventLog.js';
import { ScriptedLog } from '../support/logWrappers.js';
import { T0 } from '../support/records.js';

const TOKEN = 'engine-token-for-tests';
const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'command-port-')), segmentBytes: 1 << 20 });
const log = new ScriptedLog(journal);
const late: { publish?: (records: readonly LogRecord[]) => void } = {};
const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: () => T0, onDurable: (records) => late.publish?.(records) });
const server = await startCommandServer({ host, listenHost: '127.0.0.1', port: 0, token: TOKEN });
late.publish = (records) => server.publish(records);
const address = `127.0.0.1:${server.port}`;
t.teardown(async () => {
  await server.close();
  await journal.close();
});

/** Lines the engine sends back to a raw connection that writes `text`, until it closes or `ms` pass. */
function rawExchange(text: string, ms = 500): Promise<{ lines: string[]; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    const splitter = new LineSplitter();
    const lines: string[] = [];
    let closed = false;
    socket.on('data', (chunk: Buffer) => lines.push(...splitter.push(chunk)));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.write(text);
    setTimeout(() => {
      socket.destroy();
      resolve({ lines, closed });
    }, ms);
  });
}

t.test('answers after durability, with the batch records sent first', async (tt) => {
  const received: CommandRecord[] = [];
  const client = new EngineClient({ address, token: TOKEN, node: 'test-node', onRecords: (records) => received.push(...records) });
  await client.start(5_000);
  const applied = await client.submit({ type: 'Deposit', account: '0xa', amount: 5_000_000 });
  tt.equal(applied.pos, log.lastPos, 'the answer carries the durable position');
  tt.equal(applied.events[0]?.type, 'CollateralDeposited');
  const sent = received.find((r) => r.pos === applied.pos);
  tt.ok(sent !== undefined, 'the record of the command reached the node before its answer');
  tt.same(sent?.command, { type: 'Deposit', account: '0xa', amount: 5_000_000, time: sent?.command.time }, "the record's command");
  tt.equal(sent?.seq, applied.events[applied.events.length - 1]?.seq, 'with the sequence number of its last event, and not the events');
  tt.notOk(sent !== undefined && 'events' in sent, 'the record went without its events');
  tt.same(host.engine.balances('0xa')?.free, 5_000_000);
  client.close();
});

t.test('a wrong or missing token is refused, and the engine stays as it was', async (tt) => {
  const seq = host.engine.seq;
  const wrong = new EngineClient({ address, token: 'not-the-engine-token', node: 'intruder', waitMs: 200 });
  await tt.rejects(wrong.start(1_000), EngineUnavailableError);
  tt.match(wrong.problem, /wrong or missing engine token/);
  await tt.rejects(wrong.submit({ type: 'Deposit', account: '0xbad', amount: 1 }), EngineUnavailableError);
  wrong.close();
  const raw = await rawExchange(`${JSON.stringify({ type: 'command', id: 1, submission: { type: 'Deposit', account: '0xbad', amount: 1 } })}\n`);
  tt.ok(raw.closed, 'a command before the hello closes the connection');
  tt.equal(host.engine.seq, seq, 'nothing reached the engine');
});

t.test('lines that are not the protocol close the connection; unknown commands are answered and never applied', async (tt) => {
  const seq = host.engine.seq;
  tt.ok((await rawExchange('this is not json\n')).closed, 'not JSON');
  tt.ok((await rawExchange('"a string"\n')).closed, 'not a message');
  const hello = `${JSON.stringify({ type: 'hello', node: 'raw', token: TOKEN })}\n`;
  const unknown = await rawExchange(`${hello}${JSON.stringify({ type: 'command', id: 7, submission: { type: 'DropAllBalances' } })}\n${JSON.stringify({ type: 'command', id: 8, submission: null })}\n`);
  const answers = unknown.lines.map((l) => JSON.parse(l) as { type: string; id?: number; error?: string });
  tt.same(answers.filter((a) => a.type === 'failed').map((a) => [a.id, a.error]), [[7, 'bad_command'], [8, 'bad_command']]);
  tt.equal(host.engine.seq, seq, 'nothing reached the engine');
  const huge = await rawExchange(hello + 'x'.repeat(MAX_LINE_BYTES + 10), 2_000);
  tt.ok(huge.closed, 'a line past the limit closes the connection');
  const after = new EngineClient({ address, token: TOKEN, node: 'after' });
  await after.start(5_000);
  tt.equal((await after.submit({ type: 'Deposit', account: '0xc', amount: 1_000_000 })).events[0]?.type, 'CollateralDeposited', 'the port still serves others');
  after.close();
});

t.test('a command whose connection is lost before its answer is reported as unknown, never as a success', async (tt) => {
  const client = new EngineClient({ address, token: TOKEN, node: 'lossy' });
  await client.start(5_000);
  log.hold();
  const pending = client.submit({ type: 'Deposit', account: '0xd', amount: 2_000_000 });
  await new Promise((r) => setTimeout(r, 100));
  client.close();
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  tt.type(error, EngineUnavailableError);
  tt.match((error as Error).message, /may or may not have been applied/);
  log.release();
  await host.idle();
  tt.same(host.engine.balances('0xd')?.free, 2_000_000, 'the engine applied it all the same: resubmitting is what the client does');
});
