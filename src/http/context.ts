import type { Context, ParameterizedContext } from 'koa';
import type { ApiUser, OperatorUser } from '../db/entities/index.js';
import type { AuthFailLimit } from '../auth/failLimit.js';
import type { Envelope } from './errors.js';

declare module 'koa' {
  /** Shared by every request of an app (Koa's `app.context`), set in createApp. */
  interface DefaultContext {
    /** failed-authentication limit (D19); absent in test mini-apps, which then do not limit */
    authFailures?: AuthFailLimit;
  }
}

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
