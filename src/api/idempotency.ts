/**
 * Retries that act once (D24, issue 29 item 8; decisions RET-1…RET-6): every
 * POST and PUT of generators and centrals (the operations whose callers
 * authenticate with Basic, an API key or a technician's token) takes an
 * optional `Idempotency-Key` header, 1–255 visible ASCII characters. The
 * first request with a key claims it in PostgreSQL (`idempotency_key`, per
 * caller) and acts; its answer is stored; the same key with the same request
 * within 24 hours answers that answer again without acting, with another
 * request 400 `IDEMPOTENCY-KEY YA USADA CON OTRO CUERPO`, and while the first
 * is still running 409 with `Retry-After` (RET-2). Every answer is in the
 * operation's own envelope.
 *
 * The claim is marked acted in the act's own transaction (the subscriber
 * below, on every root transaction committed while the request runs), so a
 * claim whose process died is taken over only when its act never committed
 * (RET-3). The answer itself is written right after the act: a crash in that
 * window leaves an acted claim without an answer, answered 409 (RET-4).
 * An answer that did not act (a 5xx, a 429) is not kept: the next try acts.
 *
 * Transport-neutral: the HTTP mounter (src/http/mount.ts) runs it around the
 * handler of every operation `isIdempotent` names; the document
 * (document/openapi.ts) declares the header and its answers from the same
 * predicate.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../domain/ports.js';
import {
  claimIdempotencyKey,
  heldIdempotencyKey,
  markIdempotencyActed,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from '../db/stores/idempotency.js';
import { HttpError, envelopeBody, type Envelope } from '../envelopes.js';
import type { Auth, Caller, OperationDecl } from './operation.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Sent with an answer given again (not acted again). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_MESSAGES = {
  invalid: "EL ENCABEZADO 'Idempotency-Key' DEBE TENER DE 1 A 255 CARACTERES ASCII VISIBLES",
  otherBody: 'IDEMPOTENCY-KEY YA USADA CON OTRO CUERPO',
  inFlight: 'UNA SOLICITUD CON LA MISMA IDEMPOTENCY-KEY AÚN SE ESTÁ PROCESANDO; REINTENTE EN UNOS SEGUNDOS',
  answerLost: 'LA SOLICITUD CON ESTA IDEMPOTENCY-KEY YA SE PROCESÓ PERO SU RESPUESTA NO SE CONSERVÓ; CONSULTE EL ESTADO DEL SERVICIO',
} as const;

/** The callers D24 names: generators (Basic) and centrals (x-apikey), with their technicians' tokens. */
const IDEMPOTENT_AUTHS: ReadonlySet<Auth> = new Set(['basic', 'apiKey', 'basicOrJwt', 'apiKeyOrTechnician', 'technician']);

/** Whether an operation takes `Idempotency-Key`: a POST or PUT of a generator or a central. */
export function isIdempotent(op: Pick<OperationDecl, 'method' | 'auth'>): boolean {
  return (op.method === 'post' || op.method === 'put') && IDEMPOTENT_AUTHS.has(op.auth);
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header's value (null: absent); a malformed one is the 400 of the operation's envelope. */
export function idempotencyKeyOf(value: string | string[] | undefined, envelope: Envelope): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) throw new HttpError(400, envelopeBody(envelope, IDEMPOTENCY_MESSAGES.invalid));
  return value;
}

/** Whose key it is: a key is one caller's, never shared between generators or centrals (bounded: ids only). */
export function callerRef(caller: Caller): string {
  const parts = [
    caller.apiUser ? `u${caller.apiUser.id}` : '',
    caller.technician ? `t${caller.technician.id}` : '',
    caller.operator ? `o${caller.operator.id}` : '',
  ];
  return parts.filter(Boolean).join(':') || 'anonymous';
}

/**
 * JSON with every object's keys sorted, so one request is one hash whatever the order of its fields. Walked with
 * an explicit stack, not recursion: a body nested as deep as the JSON parser accepts must not overflow the call
 * stack (the edge fuzz found one: a 500). The text is the one the recursive form gave, so stored hashes still match.
 */
function canonical(value: unknown): string {
  type Step = { text: string } | { value: unknown };
  const out: string[] = [];
  const stack: Step[] = [{ value }];
  const pushAll = (steps: Step[]) => {
    for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i]);
  };
  while (stack.length) {
    const step = stack.pop()!;
    if ('text' in step) {
      out.push(step.text);
      continue;
    }
    const v = step.value;
    if (Array.isArray(v)) {
      pushAll([{ text: '[' }, ...v.flatMap((x, i): Step[] => (i ? [{ text: ',' }, { value: x }] : [{ value: x }])), { text: ']' }]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      pushAll([{ text: '{' }, ...entries.flatMap(([k, x], i): Step[] => [{ text: `${i ? ',' : ''}${JSON.stringify(k)}:` }, { value: x }]), { text: '}' }]);
    } else out.push(JSON.stringify(v ?? null));
  }
  return out.join('');
}

/** The request a key stands for: the operation and its input (body, path parameters). */
export function requestHash(operationId: string, input: unknown): string {
  return createHash('sha256').update(`${operationId}\n${canonical(input)}`).digest('hex');
}

/** A stored or fresh answer. */
export interface IdempotentAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** The claim a request holds while it acts. */
export interface IdempotencyClaim {
  /** runs the act with its transactions marking the claim acted */
  run<T>(act: () => Promise<T>): Promise<T>;
  /** the act's answer: kept, or (a 5xx or 429 that did not act) given up so the next try acts */
  settle(answer: IdempotentAnswer): Promise<void>;
}

export type Begun = { kind: 'replay'; answer: IdempotentAnswer } | { kind: 'claimed'; claim: IdempotencyClaim };

/** The claim being acted on by this async context (read by the subscriber on each root commit). */
const acting = new AsyncLocalStorage<{ claimId: string; em: EntityManager }>();

/** How long a claim is held before a retry may take it over, when its act never committed (RET-3). */
export const leaseMs = (rt: Pick<Runtime, 'config'>): number => 2 * rt.config.requestTimeoutMs;

/** Whether an answer is kept for the key: what did not act and may succeed later is not (RET-5). */
const kept = (status: number): boolean => status < 500 && status !== 429;

/**
 * Claims `key` for `caller`'s request, or answers it from the first one:
 * a replay, or the operation's 400 (another request) or 409 (in flight, or
 * acted with its answer lost).
 */
export async function beginIdempotent(
  rt: Pick<Runtime, 'orm' | 'config' | 'log'>,
  op: Pick<OperationDecl, 'operationId' | 'envelope'>,
  caller: Caller,
  key: string,
  input: unknown,
): Promise<Begun> {
  const envelope: Envelope = op.envelope === 'html' ? 'controller' : op.envelope;
  const em = rt.orm.em.fork();
  const ref = callerRef(caller);
  const hash = requestHash(op.operationId, input);
  const claimId = await claimIdempotencyKey(em, { caller: ref, key, operationId: op.operationId, requestHash: hash, leaseMs: leaseMs(rt) });
  if (claimId === null) {
    const held = await heldIdempotencyKey(em, ref, key);
    if (held && held.requestHash !== hash) throw new HttpError(400, envelopeBody(envelope, IDEMPOTENCY_MESSAGES.otherBody));
    if (held?.answer) return { kind: 'replay', answer: held.answer };
    if (held?.acted && held.leaseOver) throw new HttpError(409, envelopeBody(envelope, IDEMPOTENCY_MESSAGES.answerLost));
    // in flight (or the row went between the two statements): try again shortly
    throw new HttpError(409, envelopeBody(envelope, IDEMPOTENCY_MESSAGES.inFlight), { 'Retry-After': '1' });
  }
  return {
    kind: 'claimed',
    claim: {
      run: (act) => acting.run({ claimId, em }, act),
      async settle(answer) {
        try {
          if (!kept(answer.status) && (await releaseIdempotencyKey(em, claimId))) return;
          await storeIdempotentAnswer(em, claimId, answer.status, answer.body, answer.headers);
        } catch (err) {
          // the act is done: its answer goes out; a retry finds the claim acted (or, unacted, takes it over after its lease)
          rt.log.warn({ err, operationId: op.operationId }, 'idempotency answer not stored');
        }
      },
    },
  };
}

/**
 * Marks the request's claim acted in every root transaction committed while
 * it acts (MikroORM's beforeTransactionCommit; registered in src/main/runtime.ts),
 * so the mark commits or rolls back with the act (RET-3).
 */
export class IdempotencyActs implements EventSubscriber {
  async beforeTransactionCommit(args: TransactionEventArgs): Promise<void> {
    const scope = acting.getStore();
    if (!scope || !args.transaction) return;
    await markIdempotencyActed(scope.em, scope.claimId, args.transaction);
  }
}
