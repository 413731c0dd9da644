/**
 * Domain errors (issue 10, STYLE 9): a machine `code` and the `facts` that
 * explain it (the current state, the field, the limit). They carry no HTTP
 * status, envelope or text: one table maps each code to the spec's status and
 * message (src/api/errorTable.ts), and an operation may word a code its own
 * way; HTTP and the socket answer with the same mapping.
 */
import type { Axis } from '../geo/coordinates.js';
import type { OfferState, Trigger } from './offers/lifecycle/states.js';

/** The operation whose move the state machine refused; it picks the spec's wording. */
export type RefusedOperation = Trigger | 'add-address';

/** Every code and the facts it carries. */
export interface DomainErrorFacts {
  /**
   * An unknown uuid, or another generator's (D3), or (D11) not assigned to the
   * caller: one concept, each operation words it (spec 4.2, 4.3, 4.4, D6, D11).
   */
  'offer.not-found': { uuid?: string };
  /** D1: the transition table does not allow this move from `state` */
  'offer.move-refused': { state: OfferState; operation: RefusedOperation; to?: OfferState };
  /** D3: the uuid was offered before */
  'offer.uuid-exists': { uuid: string };
  'offer.type-unknown': { serviceTypeId: number };
  'offer.origin-missing': Record<string, never>;
  'offer.appointment-invalid': { fechaCita: string };
  'offer.coordinate-out-of-range': { field: string; axis: Axis };
  'offer.address-not-found': { which: 'origin' | 'destination' };
  /** D9: the geocoder did not answer usefully; `detail` is for the logs */
  'geocoder.unavailable': { detail: string };
  'direct.central-unknown': { nit: string };
  'direct.type-not-served': { central: string; type: string };
  'direct.technician-unknown': { dni: string };
  'stop.coordinates-invalid': Record<string, never>;
  'stop.place-missing': Record<string, never>;
  'stop.address-not-found': { direccion: string };
  'stop.too-many': { max: number };
  'history.line-unknown': { line: string };
  /** D4.2–6 */
  'acceptance.central-not-caller': { nit: string };
  'acceptance.technician-not-found': { dni: string };
  'acceptance.generator-api-not-found': { generatorId: number };
  'acceptance.already-accepted': { state: OfferState };
  'acceptance.closed': { state: OfferState };
  'acceptance.coordinate-out-of-range': { field: string; axis: Axis };
  /** D2: no coordinates given and no position ever reported */
  'acceptance.position-unknown': { technicianId: number };
  /** D20: the offer was never distributed to the answering central */
  'acceptance.not-a-recipient': { nit: string };
  /** D20: the technician named is held by another service (D16): an acceptance's or a change of technician's */
  'technician.busy': { dni: string };
  /** D20: a change of technician names no technician of the assigned central */
  'technician.not-of-central': { dni: string };
  /** D20: the technician named is INACTIVO */
  'technician.inactive': { dni: string };
  /** D20: the technician named already does this service */
  'technician.already-assigned': { dni: string };
  /** D20: no service with this codigoServicio, or one the caller's central is not assigned (the same answer) */
  'service.not-found': { codigoServicio: string };
  /** D20: the arrival time is below the straight-line distance at 120 km/h */
  'acceptance.arrival-implausible': { minutes: number; least: number };
  /** D11 */
  'progress.coordinates-invalid': Record<string, never>;
  /** D8 */
  'position.zero': Record<string, never>;
  'position.technician-not-found': Record<string, never>;
  /** D14: an unknown expediente, or one the caller takes no part in (the same answer) */
  'expediente.not-found': Record<string, never>;
  /** D14: more than 3 code requests per expediente in 10 minutes */
  'tracking.too-many-codes': Record<string, never>;
  /** D14: too many code requests and code checks from one client IP (TRACKING_LIMIT_IP) */
  'tracking.too-many-attempts': { retryAfterS: number };
  /** D14: a wrong, expired or spent code */
  'tracking.code-invalid': Record<string, never>;
  /** issue 29.9 (LIM-6): a page beyond MAX_LIST_DEPTH rows of a paged list; `maxPage` at this page size */
  'list.too-deep': { maxPage: number; maxRows: number };
  /** D14: an unknown, malformed or expired tracking token */
  'tracking.token-invalid': Record<string, never>;
  /** a full token where only a share link is taken (POST /tracking/track/public, D24) */
  'tracking.not-a-share-link': Record<string, never>;
  /** the service already has MAX_SHARE_LINKS live share links (D24) */
  'tracking.too-many-share-links': { max: number };
  /** D14: the survey before FINALIZADA, or a second one */
  'survey.not-finished': { state: OfferState };
  'survey.already-answered': Record<string, never>;
  /** D14: chat before ASIGNADA or after its open period */
  'chat.closed': { state: OfferState; reason: 'not-assigned' | 'ended' };
  /** D14: the generator and operators read only */
  'chat.read-only': Record<string, never>;
  /** D14: 30 messages per minute per author and expediente */
  'chat.too-many-messages': { retryAfterS: number };
  /** D24: the generator's offers in this minute reached its quota (offersPerMinute, QUOTA_OFFERS_PER_MIN) */
  'quota.offers': { limit: number; retryAfterS: number };
  /** D18: no such delivery */
  'delivery.not-found': { id: string };
  /** D18: a delivery still pending or being sent is not resent by hand */
  'delivery.in-flight': { id: string; state: string };
  /** D15: resending is an admin's */
  'delivery.admin-only': Record<string, never>;
  /** D23: the acceptance notice (6.1) is sent once; resending it needs the admin to say they understand that */
  'delivery.consent-needed': { id: string };
  /** D23: a test notification to an endpoint the caller's profile lacks; `key` is what is missing (`api_endpoint.estado`, `url_api`) */
  'webhook-test.endpoint-missing': { tipo: string; key: string };
  /** D14: `hasta` names no message of this chat */
  'chat.message-unknown': { id: string };
}

export type DomainErrorCode = keyof DomainErrorFacts;

export class DomainError<C extends DomainErrorCode = DomainErrorCode> extends Error {
  readonly facts: DomainErrorFacts[C];

  constructor(
    readonly code: C,
    ...facts: DomainErrorFacts[C] extends Record<string, never> ? [] : [DomainErrorFacts[C]]
  ) {
    super(code);
    this.name = 'DomainError';
    this.facts = (facts[0] ?? {}) as DomainErrorFacts[C];
  }

  /** Narrows to one code with its facts. */
  is<K extends DomainErrorCode>(code: K): this is DomainError<K> {
    return (this.code as DomainErrorCode) === code;
  }
}
