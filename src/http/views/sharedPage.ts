/**
 * A share link's page (GET /seguimiento/publico/{token}, D24): the public
 * follow-up, read-only: no script, no socket, no form. The follow-up it gets
 * is already the public one (no technician, position or address), so the
 * customer page's status part shows only what may be shown.
 */
import type { FollowUp } from '../../domain/tracking/followUp.js';
import { layout, statusPart } from './trackingPage.js';

export function sharedPage(s: FollowUp): string {
  return layout('Servicio compartido', `<p class="hint">Enlace compartido: solo lectura. Se actualiza al recargar la página.</p>\n${statusPart(s)}`);
}

export function sharedPageGone(): string {
  return layout(
    'Enlace no válido',
    '<section><h2>Enlace no válido</h2><p>Este enlace de seguimiento no existe o ya venció. Pida uno nuevo a quien se lo compartió.</p></section>',
  );
}
