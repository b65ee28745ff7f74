// The README tour's stream watcher: subscribes to the market channel for one token and prints the first
// events (the book snapshot, then price changes and trades as the demo traders move the market).
//
//   node docs/tour/watch-book.mjs <token id> [events to print, default 5]
//
// PMX_URL overrides the service's address (default http://127.0.0.1:8080; ws:// is derived from it).

import WebSocket from 'ws';

const base = (process.env.PMX_URL ?? 'http://127.0.0.1:8080').replace(/^http/, 'ws');
const [tokenId, countText = '5'] = process.argv.slice(2);
if (tokenId === undefined) {
  console.error('usage: node docs/tour/watch-book.mjs <token id> [count]');
  process.exit(2);
}
let left = Number(countText);
const socket = new WebSocket(`${base}/ws/market`);
const timeout = setTimeout(() => {
  console.error('no events within 30 s');
  process.exit(1);
}, 30_000);
socket.on('open', () => socket.send(JSON.stringify({ type: 'market', assets_ids: [tokenId] })));
socket.on('message', (data) => {
  const text = data.toString();
  if (text === 'PONG') return;
  const events = [JSON.parse(text)].flat();
  for (const e of events) console.log(e.event_type, e.event_type === 'book' ? `${e.bids.length} bids, ${e.asks.length} asks, hash ${e.hash}` : JSON.stringify(e).slice(0, 160));
  left -= 1;
  if (left <= 0) {
    clearTimeout(timeout);
    socket.close();
  }
});
socket.on('error', (error) => {
  console.error(String(error));
  process.exit(1);
});
