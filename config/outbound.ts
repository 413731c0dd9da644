/**
 * OUTBOUND_ALLOW_HOSTS entries (host names, addresses and CIDRs), parsed once
 * here so that a bad entry stops the start with a message naming it; the
 * outgoing-request policy (src/webhooks/targets.ts) is built from the result.
 */
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowedHosts {
  /** host names (lower case) that may be reached whatever they resolve to */
  hosts: Set<string>;
  networks: Array<[Address, number]>;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Parses OUTBOUND_ALLOW_HOSTS entries; throws naming a bad one. */
export function parseAllowedHosts(entries: readonly string[]): AllowedHosts {
  const hosts = new Set<string>();
  const networks: Array<[Address, number]> = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes('/')) networks.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const a = ipaddr.process(entry);
      networks.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(entry)) hosts.add(entry);
    else throw new Error(`not a host name, address or CIDR: ${raw}`);
  }
  return { hosts, networks };
}
