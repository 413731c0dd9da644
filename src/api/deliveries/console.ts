/**
 * The operator console (issue 11, D15, D18): find an offer, its timeline,
 * resend a delivery as an admin. HTML pages: their handlers are Koa-shaped
 * (src/http/routes/console.ts).
 */
import { str } from '../document/components.js';
import { named, operation } from '../operation.js';

/* ----- the operator console (HTML, D15 roles) ----- */

const page = (description: string) => ({ description, contentType: 'text/html' as const });
const seeOther = (description: string) => ({ description, headers: { Location: { description: 'where the browser goes', schema: str(2048) } } });

export const DELIVERY_MESSAGES = {
  notFound: (id: string) => `NO EXISTE LA ENTREGA ${id}`,
  inFlight: (state: string) => `LA ENTREGA AÚN ESTÁ EN CURSO (ESTADO ${state}); SOLO SE REENVÍA UNA ENTREGA TERMINADA`,
  adminOnly: 'SOLO UN OPERADOR CON ROL admin PUEDE REENVIAR UNA ENTREGA',
  /** D23: the acceptance notice (6.1) is sent once; a resend needs the admin to say they understand that */
  understand: 'Marque la casilla: el generador recibirá este aviso de aceptación por segunda vez.',
} as const;

/** The resend form: `confirmado=si` once the operator confirmed; `entiendo=si` too for the acceptance notice (6.1, D23). */
export const ResendForm = named('ConsoleResendForm', {
  type: 'object',
  properties: {
    confirmado: { enum: ['si'], description: 'the operator confirmed the resend (the dialog, or the confirmation page)' },
    entiendo: { enum: ['si'], description: 'for the acceptance notice (6.1, sent once by the spec): the admin understands the generator gets it a second time' },
  },
} as const);

export const consoleHome = operation({
  method: 'get',
  path: '/admin/console',
  operationId: 'consoleHome',
  summary: 'The operator console: the work queue, the live map with its table view, find an offer by uuid or codigoServicio (`?q=`), receivers’ health (D23)',
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
  summary: 'Resend one finished delivery by hand, same webhook-id (admin only, audited, D18), once confirmed (D23)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  pathParams: { id: { description: 'the delivery id', maxLength: 64 } },
  input: { schema: ResendForm, from: 'form' },
  responses: {
    200: page('Not confirmed yet: the page that asks (the same words as the console’s dialog)'),
    303: seeOther('Sent: back to the offer’s timeline'),
    302: seeOther('Not signed in: to the login form'),
    403: page('Not an admin, or posted from another site'),
    404: page('No such delivery'),
    409: page('The delivery is still pending or being sent'),
  },
});


export const consoleQueue = operation({
  method: 'get',
  path: '/admin/console/cola',
  operationId: 'consoleQueue',
  summary: 'The console’s work queue alone (HTML), fetched again by its script when the operator socket tells of a change (D23)',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  responses: { 200: page('The work queue’s section'), 302: seeOther('Not signed in: to the login form') },
});

export const consoleScript = operation({
  method: 'get',
  path: '/admin/console/app.js',
  operationId: 'consoleScript',
  summary: 'The console’s script (an ES module): the live map and work queue over the operator socket, the resend confirmation (D23)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  responses: { 200: { description: 'The script', contentType: 'application/javascript' } },
});
