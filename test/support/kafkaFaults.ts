// A kafkajs socket factory that loses one chosen Kafka request or its response, the way a network can: the
// connection breaks and the client cannot tell whether the broker acted. Armed per request type (API key).
// It also counts the requests sent, by type.

import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/** Kafka protocol API keys of the requests the tests break. */
export const API = { Produce: 0, InitProducerId: 22, AddPartitionsToTxn: 24, EndTxn: 26 } as const;

/** lose-response: the broker gets the request, the reply is lost. lose-request: the request never leaves. */
export type Fault = 'lose-response' | 'lose-request';

export class FaultySockets {
  private armed: { api: number; fault: Fault } | null = null;
  /** How many faults fired. */
  fired = 0;
  /** Requests written so far, by API key (on every connection of this factory). */
  readonly sent = new Map<number, number>();

  /** Breaks the next request with this API key (on any connection of this factory). */
  arm(api: number, fault: Fault): void {
    this.armed = { api, fault };
  }

  readonly factory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    const lost = (): void => {
      socket.destroy(new Error('connection lost (injected fault)'));
    };
    let swallowReplies = false;
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    // Each kafkajs request is written as one buffer: int32 size, int16 API key, ...
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk) && chunk.length >= 6) this.sent.set(chunk.readInt16BE(4), (this.sent.get(chunk.readInt16BE(4)) ?? 0) + 1);
      const armed = this.armed;
      if (armed !== null && Buffer.isBuffer(chunk) && chunk.length >= 6 && chunk.readInt16BE(4) === armed.api) {
        this.armed = null;
        this.fired += 1;
        if (armed.fault === 'lose-request') {
          setImmediate(lost);
          return true;
        }
        swallowReplies = true;
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'data' && swallowReplies) {
        lost();
        return true;
      }
      return emit(event, ...args);
    }) as typeof socket.emit;
    return socket;
  };
}
