/**
 * POST /tracking/surveyresponse (D14): once per service, only once it is
 * FINALIZADA. Each survey sets the technician's `rate` (which D2 ranks by) to
 * the plain average of its initial rate, counted once, and every survey of
 * its services: one statement, so two surveys at once cannot lose one.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { rateFromSurveys } from '../../db/stores/technicians.js';
import { insertSurvey } from '../../db/stores/tracking.js';
import type { Runtime } from '../ports.js';
import { DomainError } from '../errors.js';
import { resolveTrackingToken } from './tokens.js';

export async function submitSurvey(rt: Pick<Runtime, 'orm'>, input: { token: string; rating: number; comment?: string | null }): Promise<void> {
  const em = rt.orm.em.fork();
  const session = await resolveTrackingToken(em, input.token);
  if (!session) throw new DomainError('tracking.token-invalid');
  const { offer } = session;
  if (offer.state !== 'FINALIZADA') throw new DomainError('survey.not-finished', { state: offer.state });
  const technicianId = offer.assignedTechnician?.id ?? null;
  try {
    await em.transactional(async (tx) => {
      await insertSurvey(tx, { offerUuid: offer.uuid, technicianId, rating: input.rating, comment: input.comment?.trim() || null });
      if (technicianId === null) return;
      await rateFromSurveys(tx, technicianId);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new DomainError('survey.already-answered');
    throw err;
  }
}
