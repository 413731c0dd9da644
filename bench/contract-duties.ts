/**
 * The contract floor (issue 32, seventh session): the pipeline floor
 * (bench/pipeline-floor.ts) doing also what the contract asks of each offer,
 * each duty the plain way, one after the other, none shared between offers
 * or requests. Its POST /oferta first does, in the middleware here:
 * - HTTP Basic (spec 5.1): the pair decoded, the API user read by username
 *   (cached 5 s in the process, as the service does), the password's SHA-256
 *   (hex) compared in constant time, the user's state and the endpoint's
 *   permission checked; 401 / 403 in the system envelope (7.2);
 * - the failed-authentication limits (D19): one MGET of the client address's
 *   and the username's counters (hashed keys, D24) before the password is
 *   compared, so a blocked identity is refused even with the right password
 *   (429); a failure increments both;
 * - the generator's offer quota (D24): one increment of its minute's counter
 *   (INCR and EXPIRE in one MULTI), 429 beyond it;
 * - validation (D19): no NUL or lone surrogate in any string, then the
 *   offer's schema (the service's own, the contract's maximum lengths), with
 *   ajv, and the service type known (the types cached in the process);
 * - `http_request_duration_seconds` (D19), a prom-client histogram.
 * Then its statements below: the offer inserted once (D3) with the audit
 * row of its creation (D1: every transition is audited); each push to a
 * central recorded as a delivery, and its attempt (D18: headers, status,
 * latency, the reply's first 4 KB); the closing with its audit row; an
 * unanswered offer's expiry (D1: SIN_RESPUESTA → EXPIRADA), one delayed job
 * per offer, with its audit row.
 * For issue 32's target 1 (ISS32-16) it also takes the central's answers
 * and sends the generator its 6.1: PUT /aceptacion (the
 * central's key, the offer still open and sent to that central, one answer
 * per central, D20), and a window closed with answers written ACEPTADA with
 * the best one's 6.1 delivery in the same statement; its job then enqueues
 * the send (webhook-dispatch, the design card's), which signs it (D5), sends
 * it with got and records its attempt (D18).
 * Nothing else of the service's: no idempotency key (the bench sends none),
 * no security headers, no request log, no live events, no state
 * notifications (the bench's generator has no `api_endpoint.estado`, D12).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Got } from 'got';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';
import { Histogram, Registry } from 'prom-client';
import { offerErrorMessage, offerSchema } from '../src/api/offers/createOffer.js';
import { findUnstorableText } from '../src/text.js';
import { sign } from '../src/webhooks/send.js';

export const CONTRACT_TABLES = `
create table pf_api_user (id serial primary key, username text not null unique, password_sha256 text not null,
                          state text not null, endpoints text[] not null, offers_per_minute int not null,
                          respuesta_url text, api_key text, secret text);
create table pf_service_type (id int primary key, name text not null);
alter table pf_offer add column expires_at timestamptz, add column generator_id int;
alter table pf_central add column nit text, add column api_key text unique;
create table pf_transition (id bigserial primary key, offer_uuid uuid not null references pf_offer, from_state text, to_state text not null,
                            actor text not null, at timestamptz not null default now());
create index on pf_transition (offer_uuid);
create table pf_delivery (id bigserial primary key, offer_uuid uuid not null references pf_offer, central_id int not null, kind text not null,
                          url text not null, body jsonb not null, state text not null, created_at timestamptz not null default now());
create index on pf_delivery (offer_uuid);
create table pf_attempt (id bigserial primary key, delivery_id bigint not null references pf_delivery, request_headers jsonb not null,
                         status int, latency_ms int, reply text, error text, at timestamptz not null default now());
create index on pf_attempt (delivery_id);`;

// The contract floor's statements: each move with its audit row (D1), each push with its delivery and its attempt (D18).

/** D3 and D1: the offer, once, with its creation's audit row; a row back when it was inserted. */
export const CF_INSERT_OFFER = `
with o as (insert into pf_offer (uuid, body, origin, state, deadline_at, expires_at, generator_id)
           values ($1, $2, st_setsrid(st_makepoint($3, $4), 4326)::geography, 'ABIERTA',
                   now() + make_interval(secs => $5 / 1000.0), now() + make_interval(secs => $6 / 1000.0), $8)
           on conflict (uuid) do nothing returning uuid)
insert into pf_transition (offer_uuid, from_state, to_state, actor) select uuid, null, 'ABIERTA', $7 from o returning offer_uuid`;

/** D8 and D18: the recipients (as the pipeline floor records them) and a delivery per covering central's push. */
export const cfRecordRecipients = (reachM: number) => `
with o as (select uuid, origin, body from pf_offer where uuid = $1 and state = 'ABIERTA'),
c as (select c.id, c.url, array_agg(t.id order by t.id) as technicians
        from o join pf_central c on st_dwithin(c.center, o.origin, c.radius_m)
        join pf_technician t on t.central_id = c.id and st_dwithin(t.position, o.origin, ${reachM})
       group by c.id, c.url),
ins as (insert into pf_recipient (offer_uuid, central_id, technician_ids) select $1, id, technicians from c on conflict do nothing),
d as (insert into pf_delivery (offer_uuid, central_id, kind, url, body, state)
      select $1, c.id, 'push', c.url, jsonb_build_object('offer', o.body, 'technicians', c.technicians), 'sending' from c, o
      returning id, central_id, body)
select d.id, c.url, c.technicians, d.body from d join c on c.id = d.central_id`;

/** D18: one attempt of a delivery (its request's headers, status, latency, the reply's first 4 KB, error) and the delivery's outcome. */
export const CF_RECORD_ATTEMPT = `
with a as (insert into pf_attempt (delivery_id, request_headers, status, latency_ms, reply, error) values ($1, $2, $3, $4, $5, $6))
update pf_delivery set state = $7 where id = $1`;

/**
 * D20 and 3: a central's answer, by its key, to an offer still open that was sent to it, once per central (the offer
 * held while it is written, as the closing must wait for it); whether the key was known and the answer taken.
 */
export const CF_ACCEPT = `
with c as (select id from pf_central where api_key = $1),
o as (select o.uuid from pf_offer o
       where o.uuid = $2 and o.state = 'ABIERTA' and exists (select 1 from pf_recipient r where r.offer_uuid = o.uuid and r.central_id = (select id from c))
       for share),
ins as (insert into pf_response (offer_uuid, central_id, technician_id, minutes)
        select o.uuid, c.id, t.id, $4 from o, c join pf_technician t on t.central_id = c.id and t.dni = $3
        on conflict do nothing returning offer_uuid)
select exists (select 1 from c) as known, exists (select 1 from ins) as taken`;

/**
 * D1 and D2: the window closed, with its audit row; answered, ACEPTADA by the best answer (the fewest minutes) with
 * its 6.1 delivery (spec 6.1, D18) to the generator's endpoint. Back: the state and expiry, and the 6.1 to send.
 */
export const CF_CLOSE_OFFER = `
with c as (update pf_offer set closed_at = now(),
             state = case when exists (select 1 from pf_response r where r.offer_uuid = pf_offer.uuid) then 'ACEPTADA' else 'SIN_RESPUESTA' end
           where uuid = $1 and state = 'ABIERTA' returning uuid, state, expires_at, generator_id),
t as (insert into pf_transition (offer_uuid, from_state, to_state, actor) select uuid, 'ABIERTA', state, 'evaluation' from c),
best as (select r.* from pf_response r join c on c.uuid = r.offer_uuid and c.state = 'ACEPTADA' order by r.minutes, r.technician_id limit 1),
d as (insert into pf_delivery (offer_uuid, central_id, kind, url, body, state)
      select b.offer_uuid, b.central_id, 'acceptance', u.respuesta_url,
             jsonb_build_object('id', b.offer_uuid, 'dniPrestador', ce.nit, 'nombrePrestador', ce.name,
                                'latitudTecnico', st_y(te.position::geometry)::text, 'longitudTecnico', st_x(te.position::geometry)::text,
                                'dniTecnico', te.dni, 'tiempoLlegadaSitio', b.minutes), 'sending'
        from best b join c on true join pf_api_user u on u.id = c.generator_id
        join pf_central ce on ce.id = b.central_id join pf_technician te on te.id = b.technician_id
      returning id, url, body)
select c.state, c.expires_at as "expiresAt", d.id as "deliveryId", d.url, d.body, u.api_key as "apiKey", u.secret
  from c left join d on true left join pf_api_user u on u.id = c.generator_id and d.id is not null`;

/** D1: SIN_RESPUESTA → EXPIRADA once its time is up, with its audit row. */
export const CF_EXPIRE_OFFER = `
with e as (update pf_offer set state = 'EXPIRADA' where uuid = $1 and state = 'SIN_RESPUESTA' and expires_at <= now() returning uuid)
insert into pf_transition (offer_uuid, from_state, to_state, actor) select uuid, 'SIN_RESPUESTA', 'EXPIRADA', 'expiry' from e`;

export const CONTRACT_USER = { username: 'bench-generator', password: 'bench-generator-password' };

/** The generator's key and secret for its 6.1 (x-apikey, D5's signature), and the central's nit and key. */
export const CONTRACT_GENERATOR = { apiKey: 'bench-generator-key', secret: 'bench-generator-secret' };
export const CONTRACT_CENTRAL = { nit: '900123456', apiKey: 'bench-central-key' };

/** Creates the generator the bench authenticates as (its 6.1 going to `respuestaUrl`), and the service type of the bench's offers. */
export async function provisionContract(pool: pg.Pool, respuestaUrl = 'http://127.0.0.1:9/respuesta'): Promise<void> {
  await pool.query(CONTRACT_TABLES);
  await pool.query(
    `insert into pf_api_user (username, password_sha256, state, endpoints, offers_per_minute, respuesta_url, api_key, secret)
     values ($1, $2, 'ACTIVO', '{oferta}', 100000000, $3, $4, $5)`,
    [CONTRACT_USER.username, createHash('sha256').update(CONTRACT_USER.password).digest('hex'), respuestaUrl, CONTRACT_GENERATOR.apiKey, CONTRACT_GENERATOR.secret],
  );
  await pool.query(`insert into pf_service_type (id, name) values (1, 'GRUA')`);
}

export const contractHeaders = (): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${CONTRACT_USER.username}:${CONTRACT_USER.password}`).toString('base64')}`,
});

/** failed authentications per client address or username within FAIL_WINDOW_S before both are refused */
export const FAIL_LIMIT = 20;
const FAIL_WINDOW_S = 900;
const CACHE_MS = 5000;

interface ApiUser {
  id: number;
  password_sha256: string;
  state: string;
  endpoints: string[];
  offers_per_minute: number;
}

/**
 * The middleware that does the duties and then calls `next` (the pipeline floor's INSERT and job adds) with the
 * authenticated user in `ctx.state.user`.
 */
export function contractDuties(pool: pg.Pool, redis: Redis, prefix: string): Koa.Middleware {
  const ajv = new Ajv2020({ allErrors: false, allowUnionTypes: true });
  const validate = ajv.compile(offerSchema);
  const registry = new Registry();
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'request duration', labelNames: ['method', 'route', 'status_code'], registers: [registry] });
  const users = new Map<string, { at: number; user: ApiUser | undefined }>();
  let types = { at: 0, ids: new Set<number>() };
  const hashed = (kind: string, s: string) => `${prefix}:fail:${kind}:${createHash('sha256').update(s).digest('base64url')}`;

  const fail = (ctx: Koa.Context, status: number, message: string) => {
    ctx.status = status;
    ctx.body = { status: false, message };
  };

  const userByName = async (username: string) => {
    const hit = users.get(username);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.user;
    const { rows } = await pool.query<ApiUser>({
      name: 'api-user',
      text: 'select id, password_sha256, state, endpoints, offers_per_minute from pf_api_user where username = $1',
      values: [username],
    });
    users.set(username, { at: Date.now(), user: rows[0] });
    return rows[0];
  };

  const typeKnown = async (id: number) => {
    if (Date.now() - types.at >= CACHE_MS) {
      const { rows } = await pool.query<{ id: number }>({ name: 'service-types', text: 'select id from pf_service_type' });
      types = { at: Date.now(), ids: new Set(rows.map((r) => r.id)) };
    }
    return types.ids.has(id);
  };

  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      // spec 5.1 and D19: the pair, the limits, then the password
      const header = ctx.get('authorization');
      const pair = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
      const colon = pair.indexOf(':');
      const [username, password] = colon > 0 ? [pair.slice(0, colon), pair.slice(colon + 1)] : ['', ''];
      if (!username || !password) return fail(ctx, 401, 'No se han brindado las credenciales de acceso.');
      const keys = [hashed('ip', ctx.ip), hashed('id', username)];
      const counts = await redis.mget(keys);
      if (counts.some((c) => Number(c) >= FAIL_LIMIT)) return fail(ctx, 429, 'Demasiados intentos fallidos de autenticación.');
      const user = await userByName(username);
      const given = createHash('sha256').update(password).digest();
      if (!user || !timingSafeEqual(given, Buffer.from(user.password_sha256, 'hex'))) {
        await redis.multi().incr(keys[0]).expire(keys[0], FAIL_WINDOW_S).incr(keys[1]).expire(keys[1], FAIL_WINDOW_S).exec();
        return fail(ctx, 401, 'Las credenciales de acceso no son correctas.');
      }
      if (user.state !== 'ACTIVO') return fail(ctx, 403, "El estado del usuario de API es 'INACTIVO'.");
      if (!user.endpoints.includes('oferta')) return fail(ctx, 403, 'No tiene permiso de acceso a este endpoint.');
      // D24: the generator's quota
      const quotaKey = `${prefix}:quota:${user.id}:${Math.floor(Date.now() / 60_000)}`;
      const [[, taken]] = (await redis.multi().incr(quotaKey).expire(quotaKey, 60).exec()) as [[Error | null, number]];
      if (taken > user.offers_per_minute) return fail(ctx, 429, 'SE SUPERÓ LA CUOTA DE OFERTAS POR MINUTO DEL GENERADOR');
      // D19 and the schema, then the service type
      const body = ctx.request.body as Record<string, unknown>;
      if (findUnstorableText(body) !== null) return void ((ctx.status = 400), (ctx.body = { status: false, msg: 'TEXTO NO ALMACENABLE' }));
      if (!validate(body)) return void ((ctx.status = 400), (ctx.body = { status: false, msg: offerErrorMessage(validate.errors![0]) }));
      if (!(await typeKnown(Number.parseInt(String(body.tipoServicio), 10)))) return void ((ctx.status = 400), (ctx.body = { status: false, msg: 'TIPO DESCONOCIDO' }));
      ctx.state.user = user;
      await next();
    } finally {
      duration.observe({ method: ctx.method, route: '/api/v3/oferta', status_code: ctx.status }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A central's PUT /aceptacion (spec 3, D20), the plain way: its key given, the body's fields checked, then CF_ACCEPT;
 * 401 for a missing or unknown key, 400 for a bad body, 409 for an offer not open, not sent to it or already answered
 * by it. Other requests go on to `next`.
 */
export function contractAcceptance(pool: pg.Pool): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'PUT' || ctx.path !== '/aceptacion') return next();
    const key = ctx.get('x-apikey');
    if (!key) return void ((ctx.status = 401), (ctx.body = { status: false, message: 'No se han brindado las credenciales de acceso.' }));
    const body = (ctx.request.body ?? {}) as { id?: unknown; dniTecnico?: unknown; tiempoLlegadaSitio?: unknown };
    const { id, dniTecnico, tiempoLlegadaSitio: minutes } = body;
    if (typeof id !== 'string' || !UUID.test(id) || typeof dniTecnico !== 'string' || !Number.isInteger(minutes) || (minutes as number) <= 0) {
      return void ((ctx.status = 400), (ctx.body = { status: false, msg: 'DATOS DE ACEPTACIÓN NO VÁLIDOS' }));
    }
    const { rows } = await pool.query<{ known: boolean; taken: boolean }>({ name: 'accept', text: CF_ACCEPT, values: [key, id, dniTecnico, minutes] });
    if (!rows[0].known) return void ((ctx.status = 401), (ctx.body = { status: false, message: 'Las credenciales de acceso no son correctas.' }));
    if (!rows[0].taken) return void ((ctx.status = 409), (ctx.body = { status: false, msg: 'LA OFERTA NO ESTÁ DISPONIBLE' }));
    ctx.body = { status: true, msg: 'ACEPTACIÓN RECIBIDA' };
  };
}

/**
 * D18: one try of a delivery (a push, a 6.1), sent once with got, and its attempt recorded (the headers sent, an API
 * key masked, the status, the latency, the reply's first 4 KB or the error) with the delivery's outcome.
 */
export async function cfAttempt(pool: pg.Pool, http: Got, d: { id: string; method: 'POST' | 'PUT'; url: string; raw: string; headers: Record<string, string> }): Promise<boolean> {
  const started = performance.now();
  const attempt = await http(d.url, { method: d.method, body: d.raw, headers: d.headers, throwHttpErrors: false }).then(
    (res) => ({ status: res.statusCode, reply: res.body.slice(0, 4096), error: null }),
    (err: Error) => ({ status: null, reply: null, error: err.message }),
  );
  const ok = attempt.status !== null && attempt.status < 300;
  const sent = d.headers['x-apikey'] ? { ...d.headers, 'x-apikey': '(redacted)' } : d.headers;
  const values = [d.id, sent, attempt.status, Math.round(performance.now() - started), attempt.reply, attempt.error, ok ? 'sent' : 'failed'];
  await pool.query({ name: 'record-attempt', text: CF_RECORD_ATTEMPT, values });
  return ok;
}

/** A 6.1 as CF_CLOSE_OFFER wrote it, carried by its webhook-dispatch job. */
export interface CfAcceptance {
  deliveryId: string;
  url: string;
  body: unknown;
  apiKey: string;
  secret: string;
}

/** Spec 6.1 and D5: the generator's 6.1, with its key and signed (x-timestamp, x-signature), sent and recorded (cfAttempt). */
export function cfSendAcceptance(pool: pg.Pool, http: Got, a: CfAcceptance): Promise<boolean> {
  const raw = JSON.stringify(a.body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers = { 'content-type': 'application/json', 'x-apikey': a.apiKey, 'x-timestamp': timestamp, 'x-signature': sign(a.secret, timestamp, raw) };
  return cfAttempt(pool, http, { id: a.deliveryId, method: 'PUT', url: a.url, raw, headers });
}
