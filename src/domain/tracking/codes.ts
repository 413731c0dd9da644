/**
 * Tracking codes (D14, D16). POST /tracking/requestCode answers the same
 * whether or not the phone matches, so nobody learns which services or
 * phones exist; when it matches, a 6-digit code goes out by SMS. A code is
 * stored only as a keyed hash (HMAC-SHA256 with INTEGRITY_SECRET, bound to
 * its offer), lives 10 minutes and dies after 5 wrong tries; a newer code does
 * not kill the ones still alive (D24: a stranger asking for codes cannot lock
 * the customer out), so a right code is any live one, and a wrong try counts
 * against each. At most 3 requests per expediente in 10 minutes, matching or
 * not (then 429). Nothing is sent, and the answer is still the same, when the
 * phone had SMS_DAILY_CAP_PER_PHONE codes today, when it is no valid number or
 * lies outside SMS_ALLOWED_PREFIXES once read as E.164 (national numbers in
 * SMS_COUNTRY_CODE), or when the generator's services spent SMS_DAILY_BUDGET
 * SMS in the last 24 hours (D24). The `tracking_code` and `tracking_request`
 * tables are written only here, through their store (src/db/stores/tracking.ts).
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../ports.js';
import {
  countWrongTry,
  insertCode,
  insertCodeRequest,
  lockCodeRequests,
  lockLiveCodes,
  matchedRequestsToday,
  pruneTrackingBatch,
  recentCodeRequests,
  retireCodes,
  useCode,
} from '../../db/stores/tracking.js';
import { generatorSmsLastDay, lockGeneratorSms } from '../../db/stores/sms.js';
import { recordSms } from '../../sms/messages.js';
import { allowedDestination, toE164 } from '../../sms/phone.js';
import { smsSealKey } from '../../sms/seal.js';
import { DomainError } from '../errors.js';
import { onCommit } from '../offers/lifecycle/announce.js';
import { findExpediente, normalizeExpediente } from '../services/expediente.js';
import { followUp, type FollowUp } from './followUp.js';
import { codeSmsText, pageLink, publicOrigin } from './messages.js';
import { ApiUser } from '../../db/entities/index.js';
import { issueTrackingToken } from './tokens.js';

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_TRIES = 5;
export const REQUESTS_PER_WINDOW = 3;
export const REQUEST_WINDOW_MS = 10 * 60_000;
const CODE = /^[0-9]{6}$/;

type Deps = Pick<Runtime, 'orm' | 'config' | 'queues' | 'log'>;

/** The last 10 digits of a phone, the part compared (D14). */
export const phoneKey = (phone: string): string => phone.replace(/[^0-9]/g, '').slice(-10);

const codeHash = (secret: string, offerUuid: string, code: string): string =>
  createHmac('sha256', secret).update(`tracking-code.${offerUuid}.${code}`).digest('hex');

/** The key requests are counted under: the expediente as it names a service, else as given. */
const requestKey = (expediente: string): string => {
  const k = normalizeExpediente(expediente);
  return k === null ? expediente.trim().slice(0, 64) : 'uuid' in k ? k.uuid : k.codigoServicio;
};

export async function requestTrackingCode(rt: Deps, input: { expediente: string; telefono: string }): Promise<void> {
  const key = requestKey(input.expediente);
  await rt.orm.em.fork().transactional(async (em) => {
    // Serialises the requests of one expediente, so the limit holds under concurrency.
    await lockCodeRequests(em, key);
    if ((await recentCodeRequests(em, key, REQUEST_WINDOW_MS / 1000)) >= REQUESTS_PER_WINDOW) throw new DomainError('tracking.too-many-codes');
    const offer = await findExpediente(em, input.expediente);
    const phone = phoneKey(input.telefono);
    const matched = !!offer?.telefonoCliente && phone.length >= 7 && phoneKey(offer.telefonoCliente) === phone;
    await insertCodeRequest(em, { offerUuid: offer?.uuid ?? null, key, phone: matched ? offer!.telefonoCliente! : null, matched });
    if (!matched || !offer) return;
    if ((await matchedRequestsToday(em, offer.telefonoCliente!)) > rt.config.smsDailyCapPerPhone) {
      rt.log.warn({ uuid: offer.uuid }, 'tracking code not sent: the phone reached its daily cap');
      return;
    }
    const to = toE164(offer.telefonoCliente!, rt.config.smsCountryCode);
    if (!to || !allowedDestination(to, rt.config.smsAllowedPrefixes)) {
      rt.log.warn({ uuid: offer.uuid }, 'tracking code not sent: the phone is no valid number within SMS_ALLOWED_PREFIXES');
      return;
    }
    const generatorId = offer.generator.id;
    await lockGeneratorSms(em, generatorId);
    if ((await generatorSmsLastDay(em, generatorId)) >= rt.config.smsDailyBudget) {
      rt.log.warn({ uuid: offer.uuid, generatorId }, 'tracking code not sent: the generator spent its SMS_DAILY_BUDGET');
      return;
    }
    const generator = await em.findOne(ApiUser, offer.generator.id);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertCode(em, offer.uuid, codeHash(rt.config.integritySecret, offer.uuid, code), new Date(Date.now() + CODE_TTL_MS));
    const smsId = await recordSms(
      em,
      {
        offerUuid: offer.uuid,
        to,
        body: codeSmsText({ insurer: generator?.businessName ?? '', code, link: pageLink(publicOrigin(rt.config), offer.codigoServicio ?? offer.uuid) }),
        provider: rt.config.smsProvider,
        secret: code,
      },
      smsSealKey(rt.config.integritySecret),
    );
    onCommit(em, (r) => r.queues.add('customer-sms', 'send', { smsId }));
  });
}

export interface TrackingSession {
  token: string;
  expiresAt: Date;
  service: FollowUp;
}

/** A right code gives a token (and the follow-up); anything else is `tracking.code-invalid`, telling nothing more. */
export async function verifyTrackingCode(rt: Deps, input: { expediente: string; code: string }): Promise<TrackingSession> {
  const em = rt.orm.em.fork();
  const offer = await findExpediente(em, input.expediente);
  if (!offer || !CODE.test(input.code.trim())) throw new DomainError('tracking.code-invalid');
  const given = Buffer.from(codeHash(rt.config.integritySecret, offer.uuid, input.code.trim()), 'hex');
  const ok = await em.transactional(async (tx) => {
    const live = await lockLiveCodes(tx, offer.uuid, CODE_MAX_TRIES);
    if (!live.length) return false;
    // Every live code is compared (each in constant time), so which one matched takes no longer than a miss.
    const right = live.filter((row) => timingSafeEqual(Buffer.from(row.code_hash, 'hex'), given));
    if (!right.length) {
      await countWrongTry(tx, live.map((row) => row.id));
      return false;
    }
    await useCode(tx, right[0].id);
    // The customer is in: the other codes of the offer have nothing left to do.
    await retireCodes(tx, offer.uuid);
    return true;
  });
  if (!ok) throw new DomainError('tracking.code-invalid');
  const { token, expiresAt } = await issueTrackingToken(em, offer);
  await em.populate(offer, ['assignedTechnician', 'assignedCentral']);
  return { token, expiresAt, service: await followUp(em, offer, { public: false, averageSpeedKmh: rt.config.averageSpeedKmh }) };
}

/**
 * The retention of tracking requests and codes (run with the delivery log's,
 * every six hours): what no limit reads any more. Requests count for a day
 * (the per-phone daily cap; the per-expediente limit looks back 10 minutes),
 * codes live 10 minutes; both go a day after that, in batches.
 */
export async function pruneTracking(em: EntityManager, batch = 5000): Promise<{ requests: number; codes: number }> {
  const out = { requests: 0, codes: 0 };
  for (const [table, key] of [
    ['tracking_request', 'requests'],
    ['tracking_code', 'codes'],
  ] as const) {
    for (;;) {
      const n = await pruneTrackingBatch(em, table, batch);
      out[key] += n;
      if (n < batch) break;
    }
  }
  return out;
}
