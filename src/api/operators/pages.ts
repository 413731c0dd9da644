/** The operators' pages (D15): the login form and the queues board; Koa-shaped handlers (src/http/routes/adminLogin.ts, admin.ts). */
import { html, redirect } from '../document/responses.js';
import { operation } from '../operation.js';
import { LoginInput } from './login.js';

export const adminLoginPage = operation({
  method: 'get',
  path: '/admin/login',
  operationId: 'adminLoginPage',
  summary: 'The operators’ login form (HTML); `?next=` is where it leads once signed in, when it is a path of this site (D23)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  responses: { 200: html('The form') },
});

export const adminLogin = operation({
  method: 'post',
  path: '/admin/login',
  operationId: 'adminLogin',
  summary: 'Submit the operators’ login form: sets the operator cookie and goes to the console, or to `next` (a path of this site, D23)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  input: { schema: LoginInput, from: 'form' },
  responses: {
    303: redirect('Signed in'),
    400: html('The form again, asking for both fields (or refusing a NUL or a lone surrogate in one)'),
    401: html('The form again: wrong credentials'),
    403: html('The form again: it was posted from another site (login CSRF)'),
    429: html('The form again: too many attempts (from this address, or failed for this username)'),
    503: html('The form again: Redis away (logins fail closed, D21) or every password check busy, with Retry-After'),
  },
});

/** Bull Board's pages; mounted by its own Koa adapter (src/http/routes/admin.ts), not by the mounter. */
export const adminQueues = operation({
  method: 'get',
  path: '/admin/queues',
  operationId: 'adminQueues',
  summary: 'The job queues board (Bull Board), for operators',
  tag: 'Operadores',
  auth: 'operator',
  envelope: 'html',
  responses: { 200: html('The board'), 302: redirect('Not signed in: to the login form') },
});

export const adminLogout = operation({
  method: 'post',
  path: '/admin/logout',
  operationId: 'adminLogout',
  summary: 'Sign out: forgets the operator cookie and goes to the login form (D23)',
  tag: 'Operadores',
  auth: 'none',
  envelope: 'html',
  responses: { 303: redirect('Signed out: to the login form'), 403: html('Posted from another site') },
});
