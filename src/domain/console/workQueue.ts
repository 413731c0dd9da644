/**
 * The operators' work queue (issue 31 item 5, D23): every active service and
 * every stuck one, with the facts an operator needs at night without opening
 * anything (type, address, generator, central, technician and its last
 * position, chat, SMS, survey) and why it is stuck, in plain words. One
 * statement (db/stores/offers.ts workQueueRows).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { workQueueRows, type WorkQueueRow } from '../../db/stores/offers.js';

/** A window still open this long after its deadline is late (the evaluation normally closes it within a second). */
export const WINDOW_LATE_MS = 30_000;
/** A failed delivery counts for this long. */
export const FAILED_DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A service with no state change for this long in its state has made no progress. */
export const NO_PROGRESS_MS: Readonly<Record<string, number>> = { ASIGNADA: 30 * 60_000, EN_CAMINO: 90 * 60_000, EN_SITIO: 180 * 60_000 };
/** At most this many rows. */
export const WORK_QUEUE_LIMIT = 300;

export type StuckReason = 'ventana-atrasada' | 'entregas-fallidas' | 'sin-avance' | 'sms-fallido';

export interface WorkItem extends WorkQueueRow {
  motivos: StuckReason[];
}

export function stuckReasons(r: WorkQueueRow, now: Date): StuckReason[] {
  const out: StuckReason[] = [];
  if (r.state === 'ABIERTA' && r.deadlineAt && now.getTime() - new Date(r.deadlineAt).getTime() > WINDOW_LATE_MS) out.push('ventana-atrasada');
  if (r.failedDeliveries > 0) out.push('entregas-fallidas');
  const limit = NO_PROGRESS_MS[r.state];
  if (limit !== undefined && now.getTime() - new Date(r.lastChangeAt).getTime() > limit) out.push('sin-avance');
  if (r.smsFailed > 0 && r.smsSent === 0) out.push('sms-fallido');
  return out;
}

/** The queue: stuck services first (oldest change first), then the active ones, newest first. */
export async function workQueue(em: EntityManager, now = new Date()): Promise<WorkItem[]> {
  const rows = await workQueueRows(em, new Date(now.getTime() - WINDOW_LATE_MS), new Date(now.getTime() - FAILED_DELIVERY_WINDOW_MS), WORK_QUEUE_LIMIT);
  const items = rows.map((r) => ({ ...r, motivos: stuckReasons(r, now) }));
  const stuck = items.filter((i) => i.motivos.length).sort((a, b) => Date.parse(a.lastChangeAt) - Date.parse(b.lastChangeAt));
  const rest = items.filter((i) => !i.motivos.length);
  return [...stuck, ...rest];
}
