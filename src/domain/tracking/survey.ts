/**
 * POST /tracking/surveyresponse (D14): once per service, only once it is
 * FINALIZADA. Each survey sets the technician's `rate` (which D2 ranks by) to
 * the plain average of its initial rate, counted once, and every survey of
 * its services: one statement, so two surveys at once cannot lose one.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
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
      await tx.execute(`insert into service_survey (offer_uuid, technician_id, rating, comment) values (?, ?, ?, ?)`, [
        offer.uuid,
        technicianId,
        input.rating,
        input.comment?.trim() || null,
      ]);
      if (technicianId === null) return;
      await tx.execute(
        `update technician t
            set initial_rate = coalesce(t.initial_rate, t.rate),
                rate = (coalesce(t.initial_rate, t.rate) + s.total) / (1 + s.n)
           from (select coalesce(sum(rating), 0)::float8 as total, count(*) as n from service_survey where technician_id = ?) s
          where t.id = ?`,
        [technicianId, technicianId],
      );
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new DomainError('survey.already-answered');
    throw err;
  }
}
