/**
 * Where outgoing requests to tenants' URLs may go (decisions "Hardening:
 * security", SSRF): only to public unicast addresses, unless the operator
 * allows private ones (OUTBOUND_ALLOW_PRIVATE, default: in development and
 * test only) or names the host or its network (OUTBOUND_ALLOW_HOSTS: host
 * names and CIDRs). Loopback, private, link-local (cloud metadata
 * 169.254.169.254), carrier-grade NAT, unique-local, multicast, reserved and
 * documentation ranges are refused, IPv4-mapped IPv6 as the IPv4 it carries.
 * Checked on a URL at provisioning (literal addresses and localhost names)
 * and on every address a host name resolves to at send time (dnsLookup), so
 * DNS rebinding cannot pass.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config/index.js';
import { parseAllowedHosts, type Address } from '../../config/outbound.js';

export interface TargetPolicy {
  allowPrivate: boolean;
  /** host names (lower case) that may be reached whatever they resolve to */
  hosts: ReadonlySet<string>;
  networks: ReadonlyArray<[Address, number]>;
  /** the resolver whose answers are filtered (dns.lookup; tests give their own) */
  resolve: Resolver;
}

export type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** The policy of OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOW_HOSTS; throws naming a bad host entry. */
export function targetPolicy(o: { allowPrivate: boolean; allowHosts: readonly string[]; resolve?: Resolver }): TargetPolicy {
  const { hosts, networks } = parseAllowedHosts(o.allowHosts);
  return { allowPrivate: o.allowPrivate, hosts, networks, resolve: o.resolve ?? dnsLookup };
}

const policies = new WeakMap<object, TargetPolicy>();

/** The policy of a validated configuration (parsed once per configuration object). */
export function configTargets(cfg: Pick<Config, 'outboundAllowPrivate' | 'outboundAllowHosts'>): TargetPolicy {
  let p = policies.get(cfg);
  if (!p) {
    p = targetPolicy({ allowPrivate: cfg.outboundAllowPrivate, allowHosts: cfg.outboundAllowHosts });
    policies.set(cfg, p);
  }
  return p;
}

/** Why `ip` may not be reached (its range, e.g. `loopback`), or null when it may. */
export function refusedAddress(policy: TargetPolicy, ip: string): string | null {
  if (!ipaddr.isValid(ip)) return 'not an address';
  const a = ipaddr.process(ip); // an IPv4-mapped IPv6 address becomes the IPv4 address
  const range = a.range();
  if (range === 'unicast' || policy.allowPrivate) return null;
  if (policy.networks.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits))) return null;
  return range;
}

const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/**
 * Why a URL may not be a target before any lookup (a literal refused address,
 * `localhost`, not http(s)), or null. At provisioning and before each send.
 */
export function refusedUrl(policy: TargetPolicy, url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'not http or https';
  const host = bare(u.hostname);
  if (policy.hosts.has(host)) return null;
  if (ipaddr.isValid(host)) {
    const why = refusedAddress(policy, host);
    return why && `${ipaddr.process(host).toString()} is a ${why} address`;
  }
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return `${host} is a loopback name`;
  return null;
}

export class RefusedTargetError extends Error {
  readonly code = 'EREFUSEDTARGET';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` for got's `dnsLookup`: resolves every address of the host and
 * keeps those the policy allows; none left is an error (nothing is sent).
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const host = bare(hostname);
    policy.resolve(host, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const allowed = policy.hosts.has(host) ? addresses : addresses.filter((a) => !refusedAddress(policy, a.address));
      if (!allowed.length) {
        const seen = addresses.map((a) => `${a.address} (${refusedAddress(policy, a.address)})`).join(', ');
        return callback(new RefusedTargetError(`refused target: ${host} resolves to ${seen}`), '');
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
