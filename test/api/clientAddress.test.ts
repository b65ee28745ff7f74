// Whose X-Forwarded-For is believed, and which of its addresses is the client (api/http/clientAddress.ts).

import t from 'tap';
import { ClientAddresses } from '../../api/http/clientAddress.js';

t.test('no trusted proxies: the peer, whatever the header says', async (t) => {
  const a = new ClientAddresses([]);
  t.equal(a.trustsAny, false);
  t.equal(a.clientOf('203.0.113.9', '198.51.100.1'), '203.0.113.9');
  t.equal(a.clientOf('127.0.0.1', undefined), '127.0.0.1');
});

t.test('a peer that is not trusted: its header is ignored', async (t) => {
  const a = new ClientAddresses(['10.0.0.0/8']);
  t.equal(a.clientOf('203.0.113.9', '10.1.1.1, 198.51.100.1'), '203.0.113.9');
});

t.test('a trusted peer: the rightmost address that is not trusted', async (t) => {
  const a = new ClientAddresses(['10.0.0.0/8', '::1']);
  t.equal(a.clientOf('10.0.0.5', '198.51.100.7'), '198.51.100.7', 'one hop');
  t.equal(a.clientOf('10.0.0.5', '1.1.1.1, 198.51.100.7, 10.0.0.9'), '198.51.100.7', 'a forged leftmost entry is not believed; trusted hops are skipped');
  t.equal(a.clientOf('10.0.0.5', '10.0.0.8, 10.0.0.9'), '10.0.0.8', 'every hop trusted: the leftmost');
  t.equal(a.clientOf('::1', '2001:db8::1'), '2001:db8::1', 'IPv6');
  t.equal(a.clientOf('10.0.0.5', ''), '10.0.0.5', 'an empty header');
  t.equal(a.clientOf('::ffff:10.0.0.5', '198.51.100.7'), '198.51.100.7', 'an IPv4-mapped peer is read as IPv4');
  t.equal(a.clientOf('10.0.0.5', '::ffff:198.51.100.7'), '198.51.100.7', 'an IPv4-mapped entry is read as IPv4');
});

t.test('entries with ports; entries that are not addresses stop the walk at the trusted hop', async (t) => {
  const a = new ClientAddresses(['10.0.0.0/8']);
  t.equal(a.clientOf('10.0.0.5', '198.51.100.7:5123'), '198.51.100.7');
  t.equal(a.clientOf('10.0.0.5', '[2001:db8::1]:443'), '2001:db8::1');
  t.equal(a.clientOf('10.0.0.5', '[2001:db8::1]'), '2001:db8::1');
  t.equal(a.clientOf('10.0.0.5', 'unknown'), '10.0.0.5', 'garbage from the first hop: the trusted peer');
  t.equal(a.clientOf('10.0.0.5', '198.51.100.7, nonsense, 10.0.0.9'), '10.0.0.9', 'garbage further left: the last trusted hop');
  t.equal(a.clientOf('10.0.0.5', '[2001:db8::1]x'), '10.0.0.5');
  t.equal(a.clientOf('10.0.0.5', '300.1.1.1'), '10.0.0.5');
});
