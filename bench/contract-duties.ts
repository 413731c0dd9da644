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
 * Nothing else of the service's: no idempotency key (the bench sends none),
 * no security headers, no request log, no live events, no state
 * notifications (the bench's generator has no `api_endpoint.estado`, D12).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';
import { Histogram, Registry } from 'prom-client';
import { offerErrorMessage, offerSchema } from '../src/api/offers/createOffer.js';
import { findUnstorableText } from '../src/text.js';

export const CONTRACT_TABLES = `
create table pf_api_user (id serial primary key, username text not null unique, password_sha256 text not null,
                          state text not null, endpoints text[] not null, offers_per_minute int not null);
create table pf_service_type (id int primary key, name text not null);
alter table pf_offer add column expires_at timestamptz;
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
with o as (insert into pf_offer (uuid, body, origin, state, deadline_at, expires_at)
           values ($1, $2, st_setsrid(st_makepoint($3, $4), 4326)::geography, 'ABIERTA',
                   now() + make_interval(secs => $5 / 1000.0), now() + make_interval(secs => $6 / 1000.0))
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

/** D1: the window closed, with its audit row; the state and expiry back. */
export const CF_CLOSE_OFFER = `
with c as (update pf_offer set closed_at = now(),
             state = case when exists (select 1 from pf_response r where r.offer_uuid = pf_offer.uuid) then 'ACEPTADA' else 'SIN_RESPUESTA' end
           where uuid = $1 and state = 'ABIERTA' returning uuid, state, expires_at),
t as (insert into pf_transition (offer_uuid, from_state, to_state, actor) select uuid, 'ABIERTA', state, 'evaluation' from c)
select state, expires_at as "expiresAt" from c`;

/** D1: SIN_RESPUESTA → EXPIRADA once its time is up, with its audit row. */
export const CF_EXPIRE_OFFER = `
with e as (update pf_offer set state = 'EXPIRADA' where uuid = $1 and state = 'SIN_RESPUESTA' and expires_at <= now() returning uuid)
insert into pf_transition (offer_uuid, from_state, to_state, actor) select uuid, 'SIN_RESPUESTA', 'EXPIRADA', 'expiry' from e`;

export const CONTRACT_USER = { username: 'bench-generator', password: 'bench-generator-password' };

/** Creates the generator the bench authenticates as, and the service type of the bench's offers. */
export async function provisionContract(pool: pg.Pool): Promise<void> {
  await pool.query(CONTRACT_TABLES);
  await pool.query(`insert into pf_api_user (username, password_sha256, state, endpoints, offers_per_minute) values ($1, $2, 'ACTIVO', '{oferta}', 100000000)`, [
    CONTRACT_USER.username,
    createHash('sha256').update(CONTRACT_USER.password).digest('hex'),
  ]);
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
