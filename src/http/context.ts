import type { Context, ParameterizedContext } from 'koa';
import type { ApiUser, OperatorUser } from '../db/entities/index.js';
import type { AuthFailLimit } from './auth/failLimit.js';

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
}

export type AppContext = ParameterizedContext<AppState, Context>;
