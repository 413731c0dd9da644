import type { Context, ParameterizedContext } from 'koa';
import type { ApiUser, OperatorUser } from '../db/entities/index.js';
import type { AuthFailLimit } from '../auth/failLimit.js';
import type { OperationWording } from '../api/errorTable.js';
import type { Envelope } from '../envelopes.js';

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
  /** the request's input once validated against the operation's schema (src/http/mount.ts) */
  input?: unknown;
  /** the error envelope of the operation being served (set from its declaration, mount.ts); controller when unset */
  envelope?: Envelope;
  /** the request's Idempotency-Key (D24), null when it has none (mount.ts) */
  idempotencyKey?: string | null;
  /** the operation's own wording of some domain codes (its declaration's `wording`) */
  wording?: OperationWording;
}

export type AppContext = ParameterizedContext<AppState, Context>;
