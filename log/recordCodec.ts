// Versioned binary encoding of log records, shared by the journal and Kafka.
//
// Version 1 layout (all integers big-endian):
//   u8  version (1)
//   f64 position
//   u32 byte length of the command JSON, then the command JSON (UTF-8)
//   the events JSON (UTF-8) to the end
// The command and the events are separate so that replay can parse the command alone. Golden files of
// encoded records live in test/golden/records-v1.hex; a record of any other version is refused by name.

import type { Command, EngineEvent } from '../engine/index.js';
import type { EventsRecord, LogRecord } from './eventLog.js';

export const RECORD_VERSION = 1;
const HEADER = 1 + 8 + 4;

export class UnknownRecordVersionError extends Error {
  override readonly name = 'UnknownRecordVersionError';
  readonly retriable = false;
  constructor(readonly version: number) {
    super(`log record version ${version} is not supported by this build (it reads version ${RECORD_VERSION}); upgrade before reading this log`);
  }
}

/** A record's JSON texts and the size of its encoding: what writeRecord needs, measured before writing. */
export interface RecordText {
  readonly pos: number;
  readonly command: string;
  readonly events: string;
  readonly commandBytes: number;
  /** Bytes of the whole encoded record. */
  readonly bytes: number;
}

export function recordText(record: LogRecord): RecordText {
  const command = JSON.stringify(record.command);
  const events = JSON.stringify(record.events);
  const commandBytes = Buffer.byteLength(command, 'utf8');
  return { pos: record.pos, command, events, commandBytes, bytes: HEADER + commandBytes + Buffer.byteLength(events, 'utf8') };
}

/** Writes the encoded record at `offset` of `out` (which has text.bytes from there); returns the offset after it. */
export function writeRecord(out: Buffer, offset: number, text: RecordText): number {
  out.writeUInt8(RECORD_VERSION, offset);
  out.writeDoubleBE(text.pos, offset + 1);
  out.writeUInt32BE(text.commandBytes, offset + 9);
  out.write(text.command, offset + HEADER, text.commandBytes, 'utf8');
  out.write(text.events, offset + HEADER + text.commandBytes, text.bytes - HEADER - text.commandBytes, 'utf8');
  return offset + text.bytes;
}

export function encodeRecord(record: LogRecord): Buffer {
  const text = recordText(record);
  const out = Buffer.allocUnsafe(text.bytes);
  writeRecord(out, 0, text);
  return out;
}

function checkHeader(bytes: Uint8Array): Buffer {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 1) throw new Error('empty log record');
  const version = buf.readUInt8(0);
  if (version !== RECORD_VERSION) throw new UnknownRecordVersionError(version);
  if (buf.length < HEADER || HEADER + buf.readUInt32BE(9) > buf.length) throw new Error('truncated log record');
  return buf;
}

/** Position and command only: what replay needs. */
export function decodeCommand(bytes: Uint8Array): { pos: number; command: Command } {
  const buf = checkHeader(bytes);
  const length = buf.readUInt32BE(9);
  return { pos: buf.readDoubleBE(1), command: JSON.parse(buf.toString('utf8', HEADER, HEADER + length)) as Command };
}

export function decodeRecord(bytes: Uint8Array): LogRecord {
  const buf = checkHeader(bytes);
  const length = buf.readUInt32BE(9);
  return {
    pos: buf.readDoubleBE(1),
    command: JSON.parse(buf.toString('utf8', HEADER, HEADER + length)) as Command,
    events: JSON.parse(buf.toString('utf8', HEADER + length)) as EngineEvent[],
  };
}

/**
 * Position and events only: what the projections need. Skipping the command's JSON spares a quarter of a
 * fill's decoding (a record's command is about 450 bytes).
 */
export function decodeEvents(bytes: Uint8Array): EventsRecord {
  const buf = checkHeader(bytes);
  const length = buf.readUInt32BE(9);
  return { pos: buf.readDoubleBE(1), events: JSON.parse(buf.toString('utf8', HEADER + length)) as EngineEvent[] };
}

/** The position of an encoded record, without parsing it. */
export function positionOf(bytes: Uint8Array): number {
  return checkHeader(bytes).readDoubleBE(1);
}
