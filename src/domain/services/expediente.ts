/**
 * A service file (`expediente`, decisions D14) is named by its codigoServicio
 * (`SV-7K3M9Q`, D16) or by its offer's uuid. Anything else names nothing: the
 * caller answers exactly as for an unknown one (`EXPEDIENTE NO ENCONTRADO`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from '../../db/entities/index.js';

const SERVICE_CODE = /^SV-[A-HJKMNP-TV-Z2-9]{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Upper-cases a code and lower-cases a uuid; null when it can be neither. */
export function normalizeExpediente(expediente: string): { codigoServicio: string } | { uuid: string } | null {
  const text = expediente.trim();
  if (text.length > 64) return null;
  if (SERVICE_CODE.test(text.toUpperCase())) return { codigoServicio: text.toUpperCase() };
  if (UUID.test(text.toLowerCase())) return { uuid: text.toLowerCase() };
  return null;
}

/** The offer an expediente names, or null (unknown, or not a code nor a uuid). */
export async function findExpediente(em: EntityManager, expediente: string): Promise<Offer | null> {
  const key = normalizeExpediente(expediente);
  return key === null ? null : em.findOne(Offer, key);
}
