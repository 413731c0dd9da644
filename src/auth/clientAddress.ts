/**
 * The client's address (D24), one function for HTTP (src/http/app.ts sets
 * `ctx.ip` from it) and the socket upgrade (src/realtime/server.ts).
 *
 * - TRUST_PROXY=false: the socket's address; X-Forwarded-For is ignored.
 * - TRUST_PROXY=true: the entry TRUST_PROXY_HOPS places from the right of
 *   X-Forwarded-For (every entry right of it was written by one of our own
 *   proxies; the left-most is whatever the client wrote). A chain shorter than
 *   the hops gives its left-most entry (still written by our proxies).
 * - Only a valid IP address counts (ipaddr.js; IPv4 in four decimal parts, no
 *   `127.1` or hex forms); anything else gives the socket's address. IPv4-mapped
 *   IPv6 becomes IPv4, IPv6 is written in its canonical form without zone.
 *
 * Limiters never key on the address itself but on `limitKey`: IPv6 bucketed
 * by its /64 (one host owns a whole /64), then hashed, so every key has the
 * same short length whatever the request carried.
 */
import ipaddr from 'ipaddr.js';
import { createHash } from 'node:crypto';

export interface ProxyTrust {
  trustProxy: boolean;
  trustProxyHops: number;
}

/** A valid IP address, normalised; null for anything else. */
export function validAddress(text: string | undefined): string | null {
  if (!text) return null;
  const s = text.trim();
  if (s.length > 64) return null;
  const zone = s.indexOf('%');
  const bare = zone < 0 ? s : s.slice(0, zone); // an IPv6 zone says nothing of the client
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare).toString();
  if (!ipaddr.IPv6.isValid(bare)) return null;
  return ipaddr.process(bare).toString();
}

/** The client's address of a request, per TRUST_PROXY and TRUST_PROXY_HOPS. */
export function clientAddress(forwarded: string | string[] | undefined, socketAddress: string | undefined, trust: ProxyTrust): string {
  const own = validAddress(socketAddress) ?? '0.0.0.0';
  if (!trust.trustProxy || forwarded === undefined) return own;
  const entries = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
  const entry = entries[Math.max(0, entries.length - Math.max(1, trust.trustProxyHops))];
  return validAddress(entry) ?? own;
}

/** The limiter bucket of an address: IPv4 as is, IPv6 by its /64; hashed (32 hex characters). */
export function limitKey(address: string): string {
  const valid = validAddress(address);
  let bucket = valid ?? `?${address}`;
  if (valid && ipaddr.IPv6.isValid(valid)) {
    const parts = ipaddr.IPv6.parse(valid).parts;
    bucket = `${parts
      .slice(0, 4)
      .map((p) => p.toString(16))
      .join(':')}::/64`;
  }
  return createHash('sha256').update(bucket).digest('hex').slice(0, 32);
}
