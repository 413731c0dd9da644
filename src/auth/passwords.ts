import { createHash, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (or any two strings). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/**
 * How an API key is stored and looked up (D24): its SHA-256, hex. Keys are
 * high-entropy (at least 24 characters, provisioning refuses shorter ones),
 * so a plain digest suffices (decision SEC-22); it is also the fingerprint a
 * technician's token is bound to (D20).
 */
export function apiKeyHash(key: string): string {
  return sha256Hex(key);
}
