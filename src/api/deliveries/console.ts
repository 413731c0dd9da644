/**
 * The operator console (issue 11, D15, D18): find an offer, its timeline,
 * resend a delivery as an admin. HTML pages: their handlers are Koa-shaped
 * (src/http/routes/console.ts).
 */
import { str } from '../document/components.js';
import { operation } from '../operation.js';

/* ----- the operator console (HTML, D15 roles) ----- */

const page = (description: string) => ({ description, contentType: 'text/html' as const });
const seeOther = (description: string) => ({ description, headers: { Location: { description: 'where the browser goes', schema: str(2048) } } });

export const DELIVERY_MESSAGES = {
  notFound: (id: string) => `NO EXISTE LA ENTREGA ${id}`,
  inFlight: (state: string) => `LA ENTREGA AÚN ESTÁ EN CURSO (ESTADO ${state}); SOLO SE REENVÍA UNA ENTREGA TERMINADA`,
  adminOnly: 'SOLO UN OPERADOR CON ROL admin PUEDE REENVIAR UNA ENTREGA',
} as const;

export const consoleHome = operation({
  method: 'get',
  path: '/admin/console',
  operationId: 'consoleHome',
  summary: 'The operator console: find an offer by uuid or codigoServicio (`?q=`); receivers’ health',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  responses: {
    200: page('The console (with a message when `q` finds nothing)'),
    302: seeOther('Not signed in: to the login form'),
    303: seeOther('`q` names an offer: to its timeline'),
  },
});

export const consoleOffer = operation({
  method: 'get',
  path: '/admin/console/ofertas/{ref}',
  operationId: 'consoleOffer',
  summary: 'An offer’s timeline: transitions, the D2 ranking with each response’s figures, recipients, every delivery',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  pathParams: { ref: { description: 'the offer uuid or its codigoServicio', maxLength: 64 } },
  responses: { 200: page('The timeline'), 302: seeOther('Not signed in: to the login form'), 404: page('No such offer') },
});

export const consoleResend = operation({
  method: 'post',
  path: '/admin/console/entregas/{id}/reenviar',
  operationId: 'consoleResend',
  summary: 'Resend one finished delivery by hand, same webhook-id (admin only, audited, D18)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  pathParams: { id: { description: 'the delivery id', maxLength: 64 } },
  responses: {
    303: seeOther('Sent: back to the offer’s timeline'),
    302: seeOther('Not signed in: to the login form'),
    403: page('Not an admin, or posted from another site'),
    404: page('No such delivery'),
    409: page('The delivery is still pending or being sent'),
  },
});

