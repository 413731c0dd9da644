/**
 * POST /finalize (spec 4.4): Basic or an operator's JWT (declared `auth:
 * 'basicOrJwt'`; its 401s use the controller envelope `{status: false, msg}`
 * as 4.4 lists them, see openapi/router.ts).
 */
import { FINALIZE_MESSAGES, finalizeService as finalize, type FinalizeCaller } from '../../domain/offers/operations/finalize.js';
import type { Runtime } from '../../domain/ports.js';
import type { AppContext } from '../context.js';
import { finalizeService } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { finalizedBody } from '../presenters/operations.js';

function callerOf(ctx: AppContext): FinalizeCaller {
  if (ctx.state.operator) return { operator: ctx.state.operator };
  if (ctx.state.apiUser) return { apiUser: ctx.state.apiUser };
  throw new Error('route reached without a caller');
}

export function finalizeRoutes(rt: Runtime): Route[] {
  return [
    route(
      finalizeService,
      async (ctx, input) => {
        await finalize(rt, callerOf(ctx), input.uuid);
        return finalizedBody();
      },
      { invalid: { message: () => FINALIZE_MESSAGES.missing } },
    ),
  ];
}
