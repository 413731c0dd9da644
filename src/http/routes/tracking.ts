/**
 * Tracking for the customer (D14): POST /tracking/requestCode, /tracking/track,
 * /tracking/track/public and /tracking/surveyresponse, each behind the D13
 * integrity check (declared in openapi/customer.ts).
 */
import type { ErrorObject } from 'ajv';
import { requestTrackingCode as requestCode, verifyTrackingCode } from '../../domain/tracking/codes.js';
import { DomainError } from '../../domain/errors.js';
import { followUp } from '../../domain/tracking/followUp.js';
import { TRACKING_MESSAGES as M } from '../../domain/tracking/messages.js';
import { submitSurvey } from '../../domain/tracking/survey.js';
import { resolveTrackingToken } from '../../domain/tracking/tokens.js';
import { trackingLimiter } from '../auth/trackingLimit.js';
import type { Runtime } from '../../domain/ports.js';
import { answerSurvey, requestTrackingCode, trackService, trackServicePublic } from '../openapi/customer.js';
import { route, type Route } from '../openapi/router.js';

/** The 400 message naming the first bad field. */
export function trackingFieldMessage(e: ErrorObject): string {
  const field = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : e.instancePath.slice(1);
  if (field === '') return 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON';
  if (e.keyword === 'required') return `EL CAMPO '${field}' ES REQUERIDO`;
  if (field === 'rating') return "EL CAMPO 'rating' DEBE SER UN ENTERO DE 1 A 5";
  if (e.keyword === 'maxLength') return `EL CAMPO '${field}' EXCEDE LA LONGITUD MÁXIMA DE ${(e.params as { limit: number }).limit} CARACTERES`;
  return `EL CAMPO '${field}' NO ES VÁLIDO`;
}

const invalid = { message: trackingFieldMessage };

export function trackingRoutes(rt: Runtime): Route[] {
  // code requests and checks per client IP, shared with the customer page (one Redis counter)
  const attempt = trackingLimiter(rt);
  return [
    route(
      requestTrackingCode,
      async (ctx, input) => {
        await attempt(ctx.ip);
        await requestCode(rt, input);
        return { status: true, msg: M.codeRequested };
      },
      { invalid },
    ),
    route(
      trackService,
      async (ctx, input) => {
        await attempt(ctx.ip);
        const s = await verifyTrackingCode(rt, input);
        return { status: true, msg: M.tracked, data: { token: s.token, expiresAt: s.expiresAt.toISOString(), service: s.service } };
      },
      { invalid },
    ),
    route(
      trackServicePublic,
      async (_ctx, input) => {
        const em = rt.orm.em.fork();
        const session = await resolveTrackingToken(em, input.token);
        if (!session) throw new DomainError('tracking.token-invalid');
        return { status: true, msg: M.tracked, data: { service: await followUp(em, session.offer, { public: true, averageSpeedKmh: rt.config.averageSpeedKmh }) } };
      },
      { invalid },
    ),
    route(
      answerSurvey,
      async (_ctx, input) => {
        await submitSurvey(rt, input);
        return { status: true, msg: M.surveyThanks };
      },
      { invalid },
    ),
  ];
}
