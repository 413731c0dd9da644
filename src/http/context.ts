import type { Context, ParameterizedContext } from 'koa';
import type { ApiUser, OperatorUser } from '../db/entities/index.js';
import type { Envelope } from './errors.js';

/** What the middleware puts on ctx.state for the handlers. */
export interface AppState {
  requestId: string;
  apiUser?: ApiUser;
  operator?: Pick<OperatorUser, 'id' | 'username' | 'role'>;
  /** the request's input once validated against the route's schema (src/http/openapi/router.ts) */
  input?: unknown;
  /** the error envelope of the route being served (set from its declaration, openapi/router.ts); controller when unset */
  envelope?: Envelope;
}

export type AppContext = ParameterizedContext<AppState, Context>;
