// The market channel's book-keeping recipe (docs/websocket.md "Keeping a book") against the engine, over
// generated sessions (the engine model tests' generators: crossing and mirrored orders, FOK/FAK, GTD expiry,
// cancels, tick changes, pauses, resolution): a client that starts from the publisher's snapshot and applies
// every price_change, tick_size_change and last_trade_price must hold, after every record, exactly the book
// GET /book reads from the engine, and every price_change hash must be GET /book's hash at its timestamp.
// PMX_PROPERTY_RUNS sets the number of runs (default 25).

import t from 'tap';
import fc from 'fast-check';
import { Engine } from '../../engine/index.js';
import { bookHash, bookSnapshot, type BookSnapshot, type WireLevel } from '../../api/clob/bookView.js';
import { StreamPublisher } from '../../api/ws/streamPublisher.js';
import type { Fanout } from '../../api/ws/topics.js';
import { genesis, MARKETS, opsArb, toCommands } from '../engine/modelCommands.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 25);
// The classic variant's markets (genesis() lists the first two; the others are the neg-risk variant's).
const TOKENS = MARKETS.slice(0, 2).flatMap((m) => [...m.tokenIds]);

interface PriceChange {
  event_type: 'price_change';
  timestamp: string;
  price_changes: { asset_id: string; price: string; size: string; side: 'BUY' | 'SELL'; hash: string }[];
}

/** A subscriber's book, kept the documented way. */
class ClientBook {
  constructor(public book: BookSnapshot) {}

  apply(event: Record<string, unknown>): string | undefined {
    if (event.event_type === 'tick_size_change') this.book.tick_size = event.new_tick_size as string;
    if (event.event_type === 'last_trade_price') this.book.last_trade_price = event.price as string;
    if (event.event_type !== 'price_change') return undefined;
    const e = event as unknown as PriceChange;
    let hash: string | undefined;
    for (const c of e.price_changes) {
      if (c.asset_id !== this.book.asset_id) continue;
      const side = c.side === 'BUY' ? this.book.bids : this.book.asks;
      const at = side.findIndex((l) => l.price === c.price);
      if (at >= 0) side.splice(at, 1);
      if (c.size !== '0') side.push({ price: c.price, size: c.size });
      hash = c.hash;
    }
    const num = (l: WireLevel): number => Number(l.price);
    this.book.bids.sort((a, b) => num(a) - num(b));
    this.book.asks.sort((a, b) => num(b) - num(a));
    this.book.timestamp = e.timestamp;
    return hash;
  }
}

t.test('a client applying the stream holds GET /book after every record, and the hashes agree', async (t) => {
  let checked = 0;
  const property = fc.property(opsArb(150), (ops) => {
    const engine = new Engine();
    for (const c of genesis()) engine.apply(c);
    const sent: string[] = [];
    const fanout: Fanout = { publish: (_topic, message) => void sent.push(message), subscribers: () => 1 };
    let now = 1_700_000_000_000;
    const publisher = new StreamPublisher({ engine, fanout, catalog: () => undefined, clock: () => now });
    for (const token of TOKENS) publisher.watchToken(token);
    const clientBook = (token: string): ClientBook => {
      const { event_type: _e, ...book } = (JSON.parse(publisher.snapshotFrame([token])) as (BookSnapshot & { event_type: string })[])[0] as BookSnapshot & { event_type: string };
      return new ClientBook(book);
    };
    const books = new Map(TOKENS.map((token) => [token, clientBook(token)]));
    let pos = 0;
    for (const command of toCommands(ops)) {
      const events = engine.apply(command);
      now = command.time;
      sent.length = 0;
      publisher.publish([{ pos: ++pos, command, events }]);
      for (const message of sent) {
        const event = JSON.parse(message) as Record<string, unknown>;
        const book = books.get(event.asset_id as string) ?? books.get((event as unknown as PriceChange).price_changes?.[0]?.asset_id ?? '');
        if (book === undefined) continue;
        const hash = book.apply(event);
        if (hash !== undefined) {
          const rest = bookSnapshot(engine, book.book.asset_id, Number(book.book.timestamp)) as BookSnapshot;
          if (hash !== rest.hash) throw new Error(`price_change hash ${hash} is not GET /book's ${rest.hash} after ${command.type}`);
          if (bookHash({ ...book.book, hash: '' }) !== hash) throw new Error(`the client's own book does not hash to ${hash} after ${command.type}`);
          checked++;
        }
      }
      for (const [token, client] of books) {
        const rest = bookSnapshot(engine, token, 0) as BookSnapshot;
        const mine = { ...client.book, timestamp: '0', hash: '' };
        if (JSON.stringify({ ...rest, hash: '' }) !== JSON.stringify(mine)) {
          throw new Error(`token ${token} after ${command.type}: client ${JSON.stringify(mine)} vs GET /book ${JSON.stringify({ ...rest, hash: '' })}`);
        }
      }
    }
  });
  const details = fc.check(property, { numRuns: RUNS, seed: Number(process.env.PMX_PROPERTY_SEED ?? 1515) });
  t.notOk(details.failed, details.failed ? `${String(details.errorInstance)} (seed ${details.seed}, path ${details.counterexamplePath})` : `${details.numRuns} runs`);
  t.ok(checked > 100, `price_change hashes checked against GET /book (${checked})`);
});
