import Router from '@koa/router';
import type { ApiUser } from '../../db/entities/index.js';
import { ACCEPTANCE_MESSAGES, acceptOffer, acceptanceMessage, acceptanceSchema } from '../../domain/offers/acceptance/acceptance.js';
import { createOffer, type CreateOutcome } from '../../domain/offers/create/create.js';
import { OFFER_MESSAGES, UUID_RE, offerErrorMessage, offerSchema } from '../../domain/offers/create/input.js';
import { RESPONSES_MESSAGES, getOfferResponses } from '../../domain/offers/acceptance/responses.js';
import type { Runtime } from '../../main/runtime.js';
import { apiKeyAuth, basicAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { controllerError } from '../errors.js';
import { envelope } from '../middleware/envelope.js';
import { failureMessage } from '../middleware/failure.js';
import { presentAcceptance } from '../presenters/acceptance.js';
import { validateBody } from '../validation.js';

const responsesQuerySchema = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: { type: 'string', minLength: 1 } },
} as const;

function caller(ctx: AppContext): ApiUser {
  const user = ctx.state.apiUser;
  if (!user) throw new Error('route mounted without its authentication');
  return user;
}

function presentCreation(outcome: CreateOutcome): Record<string, unknown> {
  return outcome.kind === 'created'
    ? { status: true, msg: OFFER_MESSAGES.received }
    : { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: outcome.uuid, offersResponses: outcome.offersResponses } };
}

/** The offer lifecycle's edge: POST /oferta (4.1), GET /offer-responses (4.2), PUT /aceptacion (4.3). */
export function offerRoutes(rt: Runtime): Router<AppState> {
  const em = () => rt.orm.em;
  const router = new Router<AppState>();

  router.post('/oferta', basicAuth(em, '/oferta'), async (ctx) => {
    const input = validateBody(offerSchema, ctx.request.body, offerErrorMessage);
    ctx.body = presentCreation(await createOffer(rt, caller(ctx), input));
  });

  router.get('/offer-responses', basicAuth(em, '/offer-responses'), async (ctx) => {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const given = { uuid: body?.uuid ?? ctx.query.uuid };
    const { uuid } = validateBody<typeof responsesQuerySchema>(responsesQuerySchema, given, () => RESPONSES_MESSAGES.missingUuid, 400, {
      data: [],
    });
    // A uuid that cannot exist is simply not found.
    if (!UUID_RE.test(uuid.trim())) throw controllerError(403, RESPONSES_MESSAGES.notFound, { data: [] });
    const data = await getOfferResponses(rt.orm.em, caller(ctx).id, uuid.trim().toLowerCase());
    ctx.body = { status: true, msg: RESPONSES_MESSAGES.ok, data };
  });

  router.put(
    '/aceptacion',
    apiKeyAuth(em, '/aceptacion'),
    envelope('acceptance'),
    failureMessage(rt.log, ACCEPTANCE_MESSAGES.failure),
    async (ctx) => {
      const input = validateBody(acceptanceSchema, ctx.request.body, acceptanceMessage);
      const { status, body } = presentAcceptance(await acceptOffer(rt, caller(ctx), input));
      ctx.status = status;
      ctx.body = body;
    },
  );

  return router;
}
