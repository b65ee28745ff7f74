// The command connection between an API node and the engine role: newline-delimited JSON over TCP.
//
// The API node opens with `hello` (its node name and, when the engine requires one, the shared token); the
// engine answers `welcome` with its last durable log position, or `refused` and closes. Then the node sends
// `command`s, each with an id of its choosing, and the engine answers each, in any order, with `applied`
// (the record's log position and the events, sent only once the record is durable) or `failed`.
//
// After its welcome, the engine also sends every durable batch's records (`records`, in log order, each batch
// before the answers of its commands), so that a node's replica follows without waiting for Kafka to deliver
// them; a node reads from Kafka whatever it was not sent (before it connected, after a reconnection). A record
// goes without its events: the node's replica makes them itself when it applies the command (the engine is
// deterministic) and checks that it reached the sequence number the record ends at. Only `applied`, to the one
// node that sent the command, carries its events.
//
// A command whose connection closes before its answer may or may not have been applied; the node never
// reports such a command as a success (cluster/engineClient.ts).

import type { EngineEvent } from '../engine/index.js';
import type { CommandRecord } from '../log/eventLog.js';
import type { Submission } from '../host/engineHost.js';

export type NodeMessage =
  | { readonly type: 'hello'; readonly node: string; readonly token?: string }
  | { readonly type: 'command'; readonly id: number; readonly submission: Submission };

export type EngineMessage =
  | { readonly type: 'welcome'; readonly pos: number }
  | { readonly type: 'records'; readonly records: readonly CommandRecord[] }
  | { readonly type: 'refused'; readonly reason: string }
  | { readonly type: 'applied'; readonly id: number; readonly pos: number; readonly events: readonly EngineEvent[] }
  | { readonly type: 'failed'; readonly id: number; readonly error: CommandFailure; readonly message: string };

/** engine_stopped: the engine has stopped for good (its log failed); bad_command: not a command it knows. */
export type CommandFailure = 'engine_stopped' | 'bad_command';

/** Longest line either side accepts (a batch of 15 orders is ~15 KB; events of a sweep of the book more). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class LineTooLongError extends Error {
  override readonly name = 'LineTooLongError';
}

/** Splits a byte stream into lines (without their '\n'); holds a partial last line until its end arrives. */
export class LineSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  /** The complete lines `chunk` ends; throws LineTooLongError when a line passes MAX_LINE_BYTES. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.partialBytes === 0) lines.push(piece.toString('utf8'));
      else {
        lines.push(Buffer.concat([...this.partial, piece]).toString('utf8'));
        this.partial = [];
        this.partialBytes = 0;
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.partial.push(chunk.subarray(start));
      this.partialBytes += chunk.length - start;
      if (this.partialBytes > MAX_LINE_BYTES) throw new LineTooLongError(`a line of more than ${MAX_LINE_BYTES} bytes`);
    }
    return lines;
  }
}

/** One message as a line. */
export function lineOf(message: NodeMessage | EngineMessage): string {
  return JSON.stringify(message) + '\n';
}
