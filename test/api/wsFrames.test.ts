// Server WebSocket frames as the header edge writes them, and the splitter that finds whole frames in what uWS
// writes (api/http/edge/wsFrames.ts), checked against the `ws` library's own parser where it applies.

import t from 'tap';
import * as wsModule from 'ws';
import { closeFrame, FrameSplitter, textFrame } from '../../api/http/edge/wsFrames.js';

/** The `ws` library's frame parser (exported at run time; its types leave it out). */
interface FrameReceiver {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'conclude', listener: (code: number, reason: Buffer) => void): void;
  write(chunk: Buffer): void;
}
const { Receiver } = wsModule as unknown as { Receiver: new (options: { isServer: boolean }) => FrameReceiver };

/** What a client's parser reads from `bytes`: text messages and close frames. */
function parse(bytes: Buffer): { texts: string[]; closes: [number, string][] } {
  const texts: string[] = [];
  const closes: [number, string][] = [];
  const receiver = new Receiver({ isServer: false });
  receiver.on('message', (data: Buffer, isBinary: boolean) => texts.push(isBinary ? '<binary>' : data.toString('utf8')));
  receiver.on('conclude', (code: number, reason: Buffer) => closes.push([code, reason.toString('utf8')]));
  receiver.write(bytes);
  return { texts, closes };
}

t.test('text frames of every length encoding parse as the text sent', async (t) => {
  for (const n of [0, 1, 125, 126, 127, 65535, 65536, 200_000]) {
    const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2);
    t.same(parse(textFrame(text)).texts, [text], `${Buffer.byteLength(text)} bytes`);
  }
});

t.test('close frames carry the code and the reason, cut to what a control frame holds', async (t) => {
  t.same(parse(closeFrame(4008, 'slow consumer')).closes, [[4008, 'slow consumer']]);
  const long = closeFrame(1000, 'r'.repeat(300));
  t.equal(long.length, 2 + 125, 'a control frame carries at most 125 bytes');
});

t.test('the splitter gives whole frames only, however the bytes are cut', async (t) => {
  const frames = [textFrame('a'), textFrame('b'.repeat(300)), textFrame('c'.repeat(70_000)), closeFrame(1000, 'bye')];
  const stream = Buffer.concat(frames);
  for (const step of [1, 2, 3, 7, 100, 1000, stream.length]) {
    const splitter = new FrameSplitter();
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += step) {
      const whole = splitter.push(stream.subarray(at, Math.min(stream.length, at + step)));
      if (whole !== undefined) {
        // Each piece handed out ends on a frame boundary: parsing it alone loses nothing.
        out.push(Buffer.from(whole));
        t.ok(splitter.atBoundary || whole.length > 0);
      }
    }
    t.ok(splitter.atBoundary, `cut every ${step} bytes: nothing held at the end`);
    const pieces = out.map((piece) => parse(piece));
    t.same(pieces.flatMap((p) => p.texts), ['a', 'b'.repeat(300), 'c'.repeat(70_000)]);
    t.same(pieces.flatMap((p) => p.closes), [[1000, 'bye']]);
  }
});

t.test('a masked frame is not a server\'s: the splitter gives up and passes bytes through', async (t) => {
  const splitter = new FrameSplitter();
  const masked = Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x61]);
  t.same(splitter.push(masked), masked);
  t.equal(splitter.broken, true);
  t.same(splitter.push(Buffer.from('xyz')), Buffer.from('xyz'));
});
