import type { Config } from '../../../config/index.js';

/** Where the customer page is reached: PUBLIC_ORIGIN (D16, D24), else the contract's default `http://127.0.0.1:<PORT>`. */
export function publicOrigin(cfg: Pick<Config, 'port' | 'publicOrigin'>): string {
  let origin = cfg.publicOrigin ?? `http://127.0.0.1:${cfg.port}`;
  while (origin.endsWith('/')) origin = origin.slice(0, -1);
  return origin;
}

/** The customer page's link for an expediente: it opens asking only for the code (D16). */
export const pageLink = (origin: string, expediente: string): string => `${origin}/seguimiento?expediente=${encodeURIComponent(expediente)}`;

/**
 * The SMS text (D16): `<generator's business name>: su código de seguimiento
 * es NNNNNN (válido 10 minutos). <PUBLIC_ORIGIN>/seguimiento?expediente=<codigoServicio>`.
 */
export const codeSmsText = (sms: { insurer: string; code: string; link: string }): string =>
  `${sms.insurer}: su código de seguimiento es ${sms.code} (válido 10 minutos). ${sms.link}`;
