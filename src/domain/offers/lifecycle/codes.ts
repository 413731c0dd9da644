/**
 * Short, unique, human-readable codes of a service (decisions D6):
 * `SV-7K3M9Q` (codigoServicio) and `SL-4HX2PD` (codigoSolicitud). Six symbols
 * of an alphabet without look-alikes (no 0/O, 1/I/L, U): 30^6 ≈ 729 million
 * codes per prefix. A candidate is taken under a transaction-scoped advisory
 * lock on the code and checked against the table, so two transactions never
 * pick the same one; the unique constraints stay as the last guard.
 */
import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockFreeOfferCode } from '../../../db/stores/offers.js';

const ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
const LENGTH = 6;
const MAX_TRIES = 8;

const COLUMNS = { SV: 'codigo_servicio', SL: 'codigo_solicitud' } as const;
type Prefix = keyof typeof COLUMNS;

export const CODE_PATTERN = /^(SV|SL)-[A-HJKMNP-TV-Z2-9]{6}$/;

export function randomCode(prefix: Prefix): string {
  let body = '';
  for (let i = 0; i < LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}-${body}`;
}

export interface ServiceCodes {
  codigoServicio: string;
  codigoSolicitud: string;
}

/** A code of `prefix` that no offer has; call inside a transaction (the lock lasts until it ends). */
async function freeCode(em: EntityManager, prefix: Prefix): Promise<string> {
  for (let i = 0; i < MAX_TRIES; i++) {
    const code = randomCode(prefix);
    if (await lockFreeOfferCode(em, COLUMNS[prefix], code)) return code;
  }
  throw new Error(`no free ${prefix} code after ${MAX_TRIES} tries`);
}

/** Both codes of a service, keeping those it has; call inside the transaction that writes them. */
export async function freeServiceCodes(
  em: EntityManager,
  has: { codigoServicio: string | null; codigoSolicitud: string | null } = { codigoServicio: null, codigoSolicitud: null },
): Promise<ServiceCodes> {
  return { codigoServicio: has.codigoServicio ?? (await freeCode(em, 'SV')), codigoSolicitud: has.codigoSolicitud ?? (await freeCode(em, 'SL')) };
}
