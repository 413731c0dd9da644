/**
 * The customer page (D14): HTML forms calling the domain directly (no D13
 * signature in the browser). Their handlers need the request's cookie and
 * answer pages: src/http/routes/trackingPage.ts.
 */
import { str } from '../document/components.js';
import { named, operation } from '../operation.js';

/* ----- the customer page (D14): HTML forms, calling the domain directly (no D13 signature in the browser) ----- */

const page = (description: string) => ({ description, contentType: 'text/html' as const });
const seeOther = (description: string) => ({ description, headers: { Location: { description: 'where the browser goes', schema: str(2048) } } });

export const PageCodeForm = named('TrackingPageCodeForm', {
  type: 'object',
  required: ['expediente', 'telefono'],
  properties: { expediente: str(64, { minLength: 1 }), telefono: str(32, { minLength: 1 }) },
} as const);
export const PageVerifyForm = named('TrackingPageVerifyForm', {
  type: 'object',
  required: ['expediente', 'code'],
  properties: { expediente: str(64, { minLength: 1 }), code: str(16, { minLength: 1 }) },
} as const);
export const PageMessageForm = named('TrackingPageMessageForm', {
  type: 'object',
  required: ['texto'],
  properties: { texto: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' } },
} as const);
export const PageSurveyForm = named('TrackingPageSurveyForm', {
  type: 'object',
  required: ['rating'],
  properties: { rating: str(1, { pattern: '^[1-5]$' }), comment: str(1000) },
} as const);

export const trackingPage = operation({
  method: 'get',
  path: '/seguimiento',
  operationId: 'trackingPage',
  summary: 'The customer page: expediente and phone, or the follow-up once signed in by SMS code (D14)',
  description:
    'Without a session: `?expediente=` (the SMS link, D16) opens the code form for that expediente; adding `&otro=1` opens the first form with the expediente filled. With one: the follow-up (state, arrival time, a map at a fixed scale, the technician’s first name, identifier and plate, the chat, the survey).',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: page('The page') },
});
export const trackingPageCode = operation({
  method: 'post',
  path: '/seguimiento/codigo',
  operationId: 'trackingPageCode',
  summary: 'The page asks for a code by SMS (same rules as POST /tracking/requestCode)',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageCodeForm, from: 'form' },
  responses: { 200: page('The code form'), 400: page('The first form again, with the error'), 403: page('Posted from another site'), 429: page('Too many codes for the expediente, or too many attempts from this client') },
});
export const trackingPageVerify = operation({
  method: 'post',
  path: '/seguimiento/verificar',
  operationId: 'trackingPageVerify',
  summary: 'The page checks the code: sets the httpOnly tracking cookie and shows the follow-up',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageVerifyForm, from: 'form' },
  responses: {
    303: seeOther('Signed in: to the follow-up'),
    400: page('Invalid form'),
    401: page('Wrong or expired code'),
    403: page('Posted from another site'),
    429: page('Too many attempts from this client'),
  },
});
export const trackingPagePart = operation({
  method: 'get',
  path: '/seguimiento/parcial',
  operationId: 'trackingPagePart',
  summary: 'The live parts of the follow-up (state, messages, survey), fetched by the page’s script',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: page('The fragment'), 401: page('No valid tracking cookie') },
});
export const trackingPageMessage = operation({
  method: 'post',
  path: '/seguimiento/mensaje',
  operationId: 'trackingPageMessage',
  summary: 'The page sends a chat message as the customer',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageMessageForm, from: 'form' },
  responses: {
    303: seeOther('Sent: back to the follow-up'),
    400: page('Invalid message'),
    401: page('No valid tracking cookie'),
    403: page('Chat closed, or posted from another site'),
    429: page('Too many messages'),
  },
});
export const trackingPageSurvey = operation({
  method: 'post',
  path: '/seguimiento/encuesta',
  operationId: 'trackingPageSurvey',
  summary: 'The page sends the survey once the service is finished',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  input: { schema: PageSurveyForm, from: 'form' },
  responses: {
    303: seeOther('Recorded: back to the follow-up'),
    400: page('Invalid form'),
    401: page('No valid tracking cookie'),
    403: page('Not finished, or posted from another site'),
    409: page('Already answered'),
  },
});
export const trackingPageLogout = operation({
  method: 'post',
  path: '/seguimiento/salir',
  operationId: 'trackingPageLogout',
  summary: 'The page signs out: the tracking token is revoked (its sockets closed) and the cookie forgotten (D24)',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 303: seeOther('To the first form'), 403: page('Posted from another site') },
});
export const trackingPageScript = operation({
  method: 'get',
  path: '/seguimiento/app.js',
  operationId: 'trackingPageScript',
  summary: 'The page’s script: live updates and the chat without reloading',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  responses: { 200: { description: 'The script', contentType: 'application/javascript' } },
});

export const trackingSharedPage = operation({
  method: 'get',
  path: '/seguimiento/publico/{token}',
  operationId: 'trackingSharedPage',
  summary: 'A share link’s page (D24): the public follow-up, read-only, no script, no socket',
  description:
    'The token of POST /tracking/share in the path: that is what a share link is (a read-only capability meant to be passed on). Shows the state, its timeline, the provider, the ETA; never the technician, its position or addresses. Sent with Referrer-Policy: no-referrer and X-Robots-Tag: noindex.',
  tag: 'Seguimiento',
  auth: 'none',
  envelope: 'html',
  pathParams: { token: { description: 'the share link’s token (`pub_…`)', maxLength: 64 } },
  responses: { 200: page('The public follow-up'), 404: page('Unknown, expired or not a share link (the same page)') },
});

export const PAGE_OPERATIONS = [
  trackingPage,
  trackingPageCode,
  trackingPageVerify,
  trackingPagePart,
  trackingPageMessage,
  trackingPageSurvey,
  trackingPageLogout,
  trackingPageScript,
  trackingSharedPage,
] as const;
