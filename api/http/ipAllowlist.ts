// A set of networks from configured CIDRs: the activity surface's IP allowlist (spec §7
// `unauthorized: ip_not_allowlisted`), and the trusted proxies (clientAddress.ts). An empty set allows
// nothing. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, as uWS reports IPv4 peers on a dual-stack socket)
// are checked as IPv4.

import { BlockList } from 'node:net';
import { parseCidr } from '../../config/index.js';

export class IpAllowlist {
  private readonly list = new BlockList();
  readonly allowsAll: boolean;

  constructor(cidrs: readonly string[]) {
    let v4All = false;
    let v6All = false;
    for (const raw of cidrs) {
      const c = parseCidr(raw);
      if (c === undefined) throw new Error(`invalid CIDR ${raw}`);
      this.list.addSubnet(c.address, c.prefix, c.family);
      if (c.prefix === 0) {
        if (c.family === 'ipv4') v4All = true;
        else v6All = true;
      }
    }
    this.allowsAll = v4All && v6All;
  }

  allows(ip: string): boolean {
    if (this.allowsAll) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped?.[1] !== undefined) return this.list.check(mapped[1], 'ipv4');
    if (ip.includes(':')) return this.list.check(ip, 'ipv6');
    return this.list.check(ip, 'ipv4');
  }
}
