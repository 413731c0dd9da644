import type { ApiUser } from '../db/entities/index.js';
import type { AppContext } from './context.js';

/** The API user the route's authentication middleware put on the context. */
export function apiUserOf(ctx: AppContext): ApiUser {
  if (!ctx.state.apiUser) throw new Error('route reached without an authenticated API user');
  return ctx.state.apiUser;
}
