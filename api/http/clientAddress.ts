// The client's address as the service records it: the key of anonymous rate limits, what the activity
// allowlist judges, what WebSocket connections per IP count, and what logs show.
//
// Contract (the usual rule of proxies' X-Forwarded-For, as nginx's real_ip_recursive and Express's
// `trust proxy` apply it):
// - The peer is the address at the other end of the connection (behind the header edge, the edge's
//   client). If the peer is not a trusted proxy (--trusted-proxies, none by default), or the request has no
//   X-Forwarded-For, the peer is the client, whatever the header says: anybody can write it.
// - Otherwise X-Forwarded-For is read from its right end, the hop the trusted peer added, leftwards: the
//   first address that is not a trusted proxy is the client. If every address is trusted, the leftmost is.
// - An entry that is not an IP address ends the walk: the client is then the trusted hop that passed it on,
//   since what a trusted proxy received from further left may be forged. Entries may carry a port
//   (`a.b.c.d:p`, `[v6]:p`); IPv4-mapped IPv6 addresses are read as IPv4.
// - Several X-Forwarded-For headers count as one list, in order (RFC 9110 §5.3).

import { isIP } from 'node:net';
import { IpAllowlist } from './ipAllowlist.js';
import { normalizeClientIp } from './headerEdge.js';

export const FORWARDED_FOR_HEADER = 'x-forwarded-for';

export class ClientAddresses {
  private readonly trusted: IpAllowlist;
  readonly trustsAny: boolean;

  constructor(trustedProxies: readonly string[]) {
    this.trusted = new IpAllowlist(trustedProxies);
    this.trustsAny = trustedProxies.length > 0;
  }

  /** The client of a request from `peer` that carried `forwardedFor` (undefined: no such header). */
  clientOf(peer: string, forwardedFor: string | undefined): string {
    if (!this.trustsAny || forwardedFor === undefined || forwardedFor === '' || !this.trusted.allows(peer)) return peer;
    const hops = forwardedFor.split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress((hops[i] as string).trim());
      if (hop === undefined) return client;
      client = hop;
      if (!this.trusted.allows(hop)) return hop;
    }
    return client;
  }
}

/** The address of one X-Forwarded-For entry, its port (if any) cut; undefined if it is not an address. */
function hopAddress(entry: string): string | undefined {
  let address = entry;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end < 0 || (end + 1 < address.length && !/^:\d{1,5}$/.test(address.slice(end + 1)))) return undefined;
    address = address.slice(1, end);
  } else if (/^\d+\.\d+\.\d+\.\d+:\d{1,5}$/.test(address)) {
    address = address.slice(0, address.indexOf(':'));
  }
  if (isIP(address) === 0) return undefined;
  return normalizeClientIp(address);
}
