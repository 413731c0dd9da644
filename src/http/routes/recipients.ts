/** GET /admin/offers/:uuid/recipients (operators): who received the offer, when, and how each push went. */
import { listRecipients as list } from '../../domain/distribution/recipients.js';
import type { Runtime } from '../../domain/ports.js';
import { listRecipients } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { recipientsBody } from '../presenters/operators.js';

export function recipientRoutes(rt: Runtime): Route[] {
  return [route(listRecipients, async (ctx) => recipientsBody(await list(rt.orm.em.fork(), ctx.params.uuid)))];
}
