/**
 * An SMS body is never kept in clear for a real provider (D24: codes never in
 * clear in any table or log): the row shows it with the code masked, and what
 * is sent travels sealed (AES-256-GCM, a key derived from INTEGRITY_SECRET by
 * HKDF) from the request that wrote it to the job that sends it, then the
 * sealed copy is erased (decision SEC-20).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** What is sealed: the body to send and the secret within it (masked wherever the row or an error shows text). */
export interface SealedSms {
  body: string;
  secret: string;
}

/** The sealing key, derived from the server's secret (INTEGRITY_SECRET). */
export function smsSealKey(serverSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, 'sms_message.sealed_body', 'sms-body-v1', 32));
}

const b64 = (b: Buffer) => b.toString('base64url');

export function seal(key: Buffer, content: SealedSms): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()]);
  return `v1.${b64(iv)}.${b64(ct)}.${b64(cipher.getAuthTag())}`;
}

/** The sealed content, or null when it cannot be opened (another key, tampered). */
export function unseal(key: Buffer, sealed: string): SealedSms | null {
  const [v, iv, ct, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !ct || !tag) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(text) as SealedSms;
  } catch {
    return null;
  }
}

/** `text` with every occurrence of `secret` replaced by asterisks. */
export function masked(text: string, secret: string): string {
  return secret ? text.split(secret).join('*'.repeat(secret.length)) : text;
}
