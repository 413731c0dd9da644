/**
 * The one typed configuration object, built from the environment once at start.
 * A bad value stops the process with a message naming the variable
 * (see ../../shared/contracts/provisioning.md for the defaults).
 */
import { Ajv } from 'ajv';
import { parseAllowedHosts } from './outbound.js';
import { QUEUE_NAMES, type QueueName } from './queues.js';

interface VarSpec {
  /** the property of Config */
  key: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  default?: string | number | boolean | null;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  /** required when NODE_ENV is production */
  requiredInProduction?: boolean;
  /** never echoed in an error */
  secret?: boolean;
}

const DEV_ONLY_SECRET = 'development-only-secret-change-me';

/**
 * Every variable, declared once: its name, the Config property it fills, its
 * type, default and bounds. The Config type is derived from this table; the
 * table in docs/configuration.md is checked against it (test/process/config.test.ts).
 */
const VARS = {
  NODE_ENV: { key: 'nodeEnv', type: 'string', default: 'development', enum: ['development', 'test', 'production'] },
  PORT: { key: 'port', type: 'integer', default: 3000, minimum: 0, maximum: 65535 },
  /** trust X-Forwarded-* from a reverse proxy (client IP for the login limit) */
  TRUST_PROXY: { key: 'trustProxy', type: 'boolean', default: false },
  /** D24: with TRUST_PROXY, the client is this many X-Forwarded-For entries from the right (our proxies in front); unset: 1 */
  TRUST_PROXY_HOPS: { key: 'trustProxyHops', type: 'integer', default: null, minimum: 1, maximum: 10 },
  DATABASE_URL: { key: 'databaseUrl', type: 'string', default: 'postgres://postgres@127.0.0.1:5432/broker', pattern: '^postgres(ql)?://' },
  REDIS_URL: { key: 'redisUrl', type: 'string', default: 'redis://127.0.0.1:6379', pattern: '^rediss?://' },
  /** a Redis Cluster's seed nodes, comma-separated host:port (D22); set, every connection is a cluster client and REDIS_URL gives only the password and TLS */
  /** with REDIS_CLUSTER_NODES: the address each master announces mapped to the one to reach it by (NAT, a proxy): `10.0.0.5:7000=redis-a:7000,…` */
  REDIS_CLUSTER_NAT_MAP: { key: 'redisClusterNatMap', type: 'string', default: '', pattern: '^\\s*$|^\\s*[^\\s,:=]+:[0-9]{1,5}=[^\\s,:=]+:[0-9]{1,5}\\s*(,\\s*[^\\s,:=]+:[0-9]{1,5}=[^\\s,:=]+:[0-9]{1,5}\\s*)*$' },
  REDIS_CLUSTER_NODES: { key: 'redisClusterNodes', type: 'string', default: '', pattern: '^\\s*$|^\\s*[^\\s,:]+:[0-9]{1,5}\\s*(,\\s*[^\\s,:]+:[0-9]{1,5}\\s*)*$' },
  /** D21 (issue 30): a command of a process's own Redis connection not answered within this (ms) fails (a 503 or a logged step), and a PING not answered within it drops the connection; 0: no limit (the PING's: 3 s) */
  REDIS_COMMAND_TIMEOUT_MS: { key: 'redisCommandTimeoutMs', type: 'integer', default: 2000, minimum: 0 },
  /** D21: opening a PostgreSQL connection, or waiting for one of the pool, gives up after this (ms) */
  DB_CONNECT_TIMEOUT_MS: { key: 'dbConnectTimeoutMs', type: 'integer', default: 3000, minimum: 1 },
  /** D21: a statement PostgreSQL does not answer within this (ms) fails on the client (a stalled connection); 0: no limit */
  DB_QUERY_TIMEOUT_MS: { key: 'dbQueryTimeoutMs', type: 'integer', default: 15000, minimum: 0 },
  OFFER_RESPONSE_WINDOW_MS: { key: 'offerResponseWindowMs', type: 'integer', default: 30000, minimum: 1 },
  OFFER_MAX_OPEN_MS: { key: 'offerMaxOpenMs', type: 'integer', default: 900000, minimum: 1 },
  REQUEST_TIMEOUT_MS: { key: 'requestTimeoutMs', type: 'integer', default: 60000, minimum: 1 },
  /** an idle keep-alive connection is closed by the API after this (ms): longer than a client's or a proxy's idle timeout, so that they close first (EDGE-15) */
  KEEP_ALIVE_TIMEOUT_MS: { key: 'keepAliveTimeoutMs', type: 'integer', default: 61000, minimum: 1 },
  /** longest a SIGTERM drain may take before the process gives up and exits 1 */
  SHUTDOWN_TIMEOUT_MS: { key: 'shutdownTimeoutMs', type: 'integer', default: 30000, minimum: 1 },
  WEBHOOK_TIMEOUT_MS: { key: 'webhookTimeoutMs', type: 'integer', default: 10000, minimum: 1 },
  /** tenants' URLs may reach private addresses; unset: true outside production only (read in loadConfig) */
  OUTBOUND_ALLOW_PRIVATE: { key: 'outboundAllowPrivate', type: 'boolean', default: null },
  /** comma-separated host names and CIDRs allowed anyway (read in loadConfig) */
  OUTBOUND_ALLOW_HOSTS: { key: 'outboundAllowHosts', type: 'string', default: '' },
  LOGIN_RATE_LIMIT: { key: 'loginRateLimit', type: 'integer', default: 5, minimum: 1 },
  LOGIN_RATE_WINDOW_S: { key: 'loginRateWindowS', type: 'integer', default: 900, minimum: 1 },
  /** D24: failed operator logins per username (from anywhere) in LOGIN_RATE_WINDOW_S, then 429 */
  LOGIN_ACCOUNT_LIMIT: { key: 'loginAccountLimit', type: 'integer', default: 10, minimum: 1 },
  /** argon2 password checks running at once per API process (64 MiB each), and how many more may wait (LIM-4) */
  LOGIN_HASH_CONCURRENCY: { key: 'loginHashConcurrency', type: 'integer', default: 2, minimum: 1, maximum: 64 },
  LOGIN_HASH_QUEUE: { key: 'loginHashQueue', type: 'integer', default: 16, minimum: 0, maximum: 1000 },
  /** failed authentications (Basic, API key) per client IP / per username or key in the window, then 429 (D19) */
  AUTH_FAIL_LIMIT_IP: { key: 'authFailLimitIp', type: 'integer', default: 100, minimum: 1 },
  AUTH_FAIL_LIMIT_ID: { key: 'authFailLimitId', type: 'integer', default: 10, minimum: 1 },
  AUTH_FAIL_WINDOW_S: { key: 'authFailWindowS', type: 'integer', default: 900, minimum: 1 },
  /** how long a verified Basic pair or API key is trusted without a lookup (ms; 0: off); provisioning empties it at once */
  AUTH_CACHE_TTL_MS: { key: 'authCacheTtlMs', type: 'integer', default: 5000, minimum: 0, maximum: 60000 },
  JWT_SECRET: { key: 'jwtSecret', type: 'string', default: DEV_ONLY_SECRET, requiredInProduction: true, secret: true, pattern: '^.{32,}$' },
  JWT_EXPIRES_IN: { key: 'jwtExpiresIn', type: 'string', default: '8h', pattern: '^[0-9]+[smhd]$' },
  INTEGRITY_SECRET: { key: 'integritySecret', type: 'string', default: DEV_ONLY_SECRET, requiredInProduction: true, secret: true, pattern: '^.{32,}$' },
  QUEUE_PREFIX: { key: 'queuePrefix', type: 'string', default: 'bull', pattern: '^[A-Za-z0-9_-]+$' },
  BODY_LIMIT: { key: 'bodyLimit', type: 'string', default: '1mb', pattern: '^[0-9]+(b|kb|mb)$' },
  LOG_LEVEL: { key: 'logLevel', type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
  /** average speed (km/h) used to estimate arrival time from a distance (decisions D2) */
  AVERAGE_SPEED_KMH: { key: 'averageSpeedKmh', type: 'number', default: 30, minimum: 1 },
  /** search radius for technicians (km); wider for priority (guardian SI) offers (D8) */
  SEARCH_RADIUS_KM: { key: 'searchRadiusKm', type: 'number', default: 15, minimum: 0 },
  PRIORITY_SEARCH_RADIUS_KM: { key: 'prioritySearchRadiusKm', type: 'number', default: 30, minimum: 0 },
  /** a technician's position older than this (seconds) does not count for distribution; 0: never stale */
  POSITION_MAX_AGE_S: { key: 'positionMaxAgeS', type: 'integer', default: 600, minimum: 0 },
  /** how many technicians (nearest first) one offer is pushed to */
  DISTRIBUTION_CAP: { key: 'distributionCap', type: 'integer', default: 50, minimum: 1 },
  /**
   * issue 32: an offer with less of its window left than this (ms; at most a tenth of the window) is no longer
   * distributed: nobody could answer it in time, and its distribution would hold the row its closing needs
   */
  DISTRIBUTION_CUTOFF_MS: { key: 'distributionCutoffMs', type: 'integer', default: 1000, minimum: 0 },
  /** fixed identity of the service operator in the acceptance notification (spec 6.1) */
  GESTOR_ID: { key: 'gestorId', type: 'string', default: 'BROKER' },
  GESTOR_DNI: { key: 'gestorDni', type: 'string', default: '900000000' },
  /** legacy variant of the acceptance notification (spec 6.1), by the legacy central's tax id */
  LEGACY_CENTRAL_NIT: { key: 'legacyCentralNit', type: 'string', default: null, pattern: '^[0-9]{1,15}$' },
  LEGACY_GESTOR_ID: { key: 'legacyGestorId', type: 'string', default: 'BROKER-LEGACY' },
  LEGACY_GESTOR_DNI: { key: 'legacyGestorDni', type: 'string', default: '900000001' },
  /** geocoder adapter (D9) */
  GEOCODER: { key: 'geocoder', type: 'string', default: 'gazetteer', enum: ['gazetteer', 'nominatim', 'google'] },
  NOMINATIM_URL: { key: 'nominatimUrl', type: 'string', default: 'http://127.0.0.1:8080', pattern: '^https?://' },
  GOOGLE_GEOCODING_KEY: { key: 'googleGeocodingKey', type: 'string', default: '' },
  GEOCODER_TIMEOUT_MS: { key: 'geocoderTimeoutMs', type: 'integer', default: 5000, minimum: 1 },
  /** how long an HTTP geocoder's "no result" is cached (seconds); results themselves are kept */
  GEOCODER_NEGATIVE_TTL_S: { key: 'geocoderNegativeTtlS', type: 'integer', default: 3600, minimum: 0 },
  /** how many times a state notification (D12) is tried before it is given up */
  NOTIFICATION_ATTEMPTS: { key: 'notificationAttempts', type: 'integer', default: 8, minimum: 1 },
  NOTIFICATION_BACKOFF_MS: { key: 'notificationBackoffMs', type: 'integer', default: 1000, minimum: 1 },
  /** 6.1 sends a worker taking webhook-dispatch jobs starts itself right after its selections' commit; beyond, and 0: through the queue */
  ACCEPTANCE_SENDS_IN_FLIGHT: { key: 'acceptanceSendsInFlight', type: 'integer', default: 50, minimum: 0, maximum: 1000 },
  /** how often each worker process runs the reconcile (outbox sweeper, schedules; src/domain/outbox/reconcile.ts) (ms); 0 turns it off */
  /**
   * issue 32 (TC-1): a background job (distribution, expiry, notification, SMS) does not start while an open window
   * is overdue by more than CLOSING_YIELD_LATE_MS; it waits at most CLOSING_YIELD_MAX_MS (0: never waits)
   */
  CLOSING_YIELD_LATE_MS: { key: 'closingYieldLateMs', type: 'integer', default: 20, minimum: 0 },
  CLOSING_YIELD_MAX_MS: { key: 'closingYieldMaxMs', type: 'integer', default: 250, minimum: 0 },
  /**
   * issue 32 (ISS32-4): an evaluation job stays on to close the windows due within CLOSING_LINGER_MS of the last it
   * closed, each batch at its deadline (0: each window's own job closes it)
   */
  CLOSING_LINGER_MS: { key: 'closingLingerMs', type: 'integer', default: 250, minimum: 0, maximum: 5000 },
  SWEEP_INTERVAL_MS: { key: 'sweepIntervalMs', type: 'integer', default: 5000, minimum: 0 },
  /** a bearer token a Prometheus scraper may use for GET /metrics (operators use their session); empty: none */
  METRICS_TOKEN: { key: 'metricsToken', type: 'string', default: '', secret: true, pattern: '^(.{16,})?$' },
  /** after provisioning gives an API user a new key, how long the previous one still authenticates (seconds, D24) */
  API_KEY_GRACE_S: { key: 'apiKeyGraceS', type: 'integer', default: 86400, minimum: 0, maximum: 2592000 },
  /** how long SMS rows (sms_message) are kept, in days */
  SMS_RETENTION_DAYS: { key: 'smsRetentionDays', type: 'integer', default: 30, minimum: 1 },
  /** how long chat messages are kept after they were sent, in days */
  CHAT_RETENTION_DAYS: { key: 'chatRetentionDays', type: 'integer', default: 90, minimum: 1 },
  /** how long a survey's free-text comment is kept, in days (the rating stays: technicians' rates average it) */
  SURVEY_COMMENT_RETENTION_DAYS: { key: 'surveyCommentRetentionDays', type: 'integer', default: 180, minimum: 1 },
  /** how long a customer's tracking token row is kept after it expired, in days */
  TRACKING_TOKEN_RETENTION_DAYS: { key: 'trackingTokenRetentionDays', type: 'integer', default: 1, minimum: 0 },
  /** how long the delivery log (every webhook attempt) is kept, in days (D18: at least 30) */
  DELIVERY_RETENTION_DAYS: { key: 'deliveryRetentionDays', type: 'integer', default: 30, minimum: 30 },
  /** SMS provider for tracking codes (D16): outbox (offline table), http or twilio */
  SMS_PROVIDER: { key: 'smsProvider', type: 'string', default: 'outbox', enum: ['outbox', 'http', 'twilio'] },
  SMS_HTTP_URL: { key: 'smsHttpUrl', type: 'string', default: '', pattern: '^(https?://.*)?$' },
  SMS_HTTP_TOKEN: { key: 'smsHttpToken', type: 'string', default: '', secret: true },
  TWILIO_ACCOUNT_SID: { key: 'twilioAccountSid', type: 'string', default: '', pattern: '^(AC[0-9a-fA-F]{32})?$' },
  TWILIO_AUTH_TOKEN: { key: 'twilioAuthToken', type: 'string', default: '', secret: true },
  TWILIO_FROM: { key: 'twilioFrom', type: 'string', default: '' },
  TWILIO_API_URL: { key: 'twilioApiUrl', type: 'string', default: 'https://api.twilio.com', pattern: '^https?://' },
  SMS_TIMEOUT_MS: { key: 'smsTimeoutMs', type: 'integer', default: 10000, minimum: 1 },
  /** tries of one SMS before it is recorded as failed (exponential backoff from 1 s) */
  SMS_ATTEMPTS: { key: 'smsAttempts', type: 'integer', default: 4, minimum: 1, maximum: 20 },
  /** tracking-code SMS one generator's services may send in 24 hours (D24); beyond it nothing is sent and the answer does not change */
  SMS_DAILY_BUDGET: { key: 'smsDailyBudget', type: 'integer', default: 1000, minimum: 0 },
  /** comma-separated E.164 prefixes an SMS may go to (D24); any other destination is not sent to */
  SMS_ALLOWED_PREFIXES: { key: 'smsAllowedPrefixes', type: 'string', default: '+57', pattern: '^\\s*\\+[0-9]{1,15}\\s*(,\\s*\\+[0-9]{1,15}\\s*)*$' },
  /** the country calling code a phone written without `+` is read in (national numbers, D24) */
  SMS_COUNTRY_CODE: { key: 'smsCountryCode', type: 'string', default: '57', pattern: '^[1-9][0-9]{0,2}$' },
  /** tracking codes sent to one phone per day, whatever the expediente (D16: no SMS flood) */
  SMS_DAILY_CAP_PER_PHONE: { key: 'smsDailyCapPerPhone', type: 'integer', default: 10, minimum: 1 },
  /** tracking code requests and code checks per client IP in TRACKING_LIMIT_WINDOW_S, API and customer page together (then 429) */
  /** D24: a generator's offers per minute (POST /oferta, /asignacion-directa) unless provisioning's offersPerMinute says otherwise, then 429 */
  QUOTA_OFFERS_PER_MIN: { key: 'quotaOffersPerMin', type: 'integer', default: 600, minimum: 1 },
  TRACKING_LIMIT_IP: { key: 'trackingLimitIp', type: 'integer', default: 30, minimum: 1 },
  TRACKING_LIMIT_WINDOW_S: { key: 'trackingLimitWindowS', type: 'integer', default: 600, minimum: 1 },
  /** most stops an offer may have (POST /add-address) */
  MAX_STOPS: { key: 'maxStops', type: 'integer', default: 10, minimum: 1 },
  /** the business's UTC offset: the history's date-only desde/hasta are local days (fechaCita is America/Bogota time) */
  LOCAL_UTC_OFFSET: { key: 'localUtcOffset', type: 'string', default: '-05:00', pattern: '^[+-](0[0-9]|1[0-4]):[0-5][0-9]$' },
  /** BullMQ job lock: a job whose worker stops renewing it for this long is stalled and re-run once */
  WORKER_LOCK_DURATION_MS: { key: 'workerLockDurationMs', type: 'integer', default: 10000, minimum: 100 },
  /** how often a worker looks for stalled jobs (a killed worker's job is taken within lock + interval) */
  WORKER_STALLED_INTERVAL_MS: { key: 'workerStalledIntervalMs', type: 'integer', default: 5000, minimum: 100 },
  /** `npm start`: API processes sharing PORT (0: the cores less the background worker processes, at least one) */
  WEB_PROCESSES: { key: 'webProcesses', type: 'integer', default: 0, minimum: 0, maximum: 64 },
  /** `npm start`: worker processes for the queues that may pile up (distribution, notifications, SMS) */
  WORKER_PROCESSES: { key: 'workerProcesses', type: 'integer', default: 1, minimum: 1, maximum: 64 },
  /** the queues a worker process takes jobs from, comma-separated (empty: all); `npm start` sets it per process */
  WORKER_QUEUES: { key: 'workerQueues', type: 'string', default: '', pattern: '^[a-z, -]*$' },
  /** how much a worker process lowers its own CPU priority (nice, 0–19); `npm start` sets it for the background workers */
  WORKER_NICE: { key: 'workerNice', type: 'integer', default: 0, minimum: -20, maximum: 19 },
  /**
   * issue 32 (TC-5): the CPU priority `npm start` asks for its time-critical worker, above the API's and far above the
   * background's; a negative value needs CAP_SYS_NICE (root, or the capability): without it the worker runs at 0
   */
  TIME_CRITICAL_NICE: { key: 'timeCriticalNice', type: 'integer', default: -5, minimum: -20, maximum: 0 },
  /** real-time sockets (D10): ping interval; a socket that missed the previous pong is terminated */
  /** how long a technician's bearer token from POST /tecnicos/token lasts (seconds; D20: 12 h) */
  TECHNICIAN_TOKEN_TTL_S: { key: 'technicianTokenTtlS', type: 'integer', default: 43200, minimum: 1 },
  /** how often each API process re-checks every open socket's credential, closing revoked or expired ones (ms; D24: at least every minute) */
  SOCKET_RECHECK_MS: { key: 'socketRecheckMs', type: 'integer', default: 30000, minimum: 10, maximum: 60000 },
  /** at most this many open sockets per identity (API user, technician, operator, tracked service), across processes (D24) */
  SOCKETS_PER_IDENTITY: { key: 'socketsPerIdentity', type: 'integer', default: 20, minimum: 1, maximum: 10000 },
  /** the customer's sockets get at most one `service.position` per service in this window (ms); the latest is delivered at its end */
  POSITION_NOTICE_MS: { key: 'positionNoticeMs', type: 'integer', default: 5000, minimum: 0, maximum: 600000 },
  /** the origin browsers reach the service at (`https://host[:port]`): cookie-authenticated sockets must come from it (D24); unset outside production: the request's own host */
  PUBLIC_ORIGIN: { key: 'publicOrigin', type: 'string', default: null, requiredInProduction: true, pattern: '^https?://[^/?#\\s]+$' },
  HEARTBEAT_MS: { key: 'heartbeatMs', type: 'integer', default: 30000, minimum: 10 },
  /** a socket whose unsent bytes pass this bound is terminated (slow client) */
  WS_MAX_BUFFER_BYTES: { key: 'wsMaxBufferBytes', type: 'integer', default: 1048576, minimum: 1024 },
  /** largest incoming socket message; a bigger one closes the socket (1009) */
  WS_MAX_MESSAGE_BYTES: { key: 'wsMaxMessageBytes', type: 'integer', default: 65536, minimum: 1024 },
} as const satisfies Record<string, VarSpec>;

type Vars = typeof VARS;

/** The value type a variable's spec gives: numbers, booleans, an enum's members, text (null when its default is). */
type ValueOf<S> = S extends { type: 'integer' | 'number' }
  ? number
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { enum: readonly (infer E)[] }
      ? E
      : S extends { default: null }
        ? string | null
        : string;

type Derived = { readonly [N in keyof Vars as Vars[N]['key']]: ValueOf<Vars[N]> };

/**
 * The one typed configuration object (STYLE 12), derived from VARS; the two
 * outbound-target variables are read into their final shape by loadConfig.
 */
export type Config = Omit<Derived, 'outboundAllowPrivate' | 'outboundAllowHosts' | 'workerQueues' | 'trustProxyHops' | 'redisClusterNodes' | 'redisClusterNatMap' | 'smsAllowedPrefixes'> & {
  /** D24: the client is this many X-Forwarded-For entries from the right (TRUST_PROXY_HOPS; 1 when unset) */
  readonly trustProxyHops: number;
  /** whether TRUST_PROXY_HOPS was set (production with TRUST_PROXY and no hops says so at start) */
  readonly trustProxyHopsSet: boolean;
  /** SMS_ALLOWED_PREFIXES read into its prefixes (`+57`, …) */
  readonly smsAllowedPrefixes: readonly string[];
  /** REDIS_CLUSTER_NODES read into seed nodes; empty: one Redis at REDIS_URL */
  readonly redisClusterNodes: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** REDIS_CLUSTER_NAT_MAP read into ioredis's natMap: announced `host:port` → where to connect */
  readonly redisClusterNatMap: Readonly<Record<string, { readonly host: string; readonly port: number }>>;
  /** tenants' URLs may name private, loopback or link-local addresses (default: outside production only) */
  readonly outboundAllowPrivate: boolean;
  /** host names and CIDRs tenants' URLs may reach whatever their range (OUTBOUND_ALLOW_HOSTS, comma-separated) */
  readonly outboundAllowHosts: string[];
  /** WORKER_QUEUES read into queue names; every queue when the variable is empty */
  readonly workerQueues: readonly QueueName[];
};

export type NodeEnv = Config['nodeEnv'];

/** The names of every variable (docs/configuration.md's table lists each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(VARS);

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** A URL's password is never echoed (database and Redis URLs carry one). */
function redact(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: false });

/** Builds and validates the configuration from an environment (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  const nodeEnv = env.NODE_ENV ?? 'development';
  for (const [name, spec] of Object.entries(VARS) as Array<[string, VarSpec]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (spec.requiredInProduction && nodeEnv === 'production') {
        problems.push(`${name} is required when NODE_ENV is production`);
        continue;
      }
      out[spec.key] = spec.default;
      continue;
    }
    const schema: Record<string, unknown> = { type: spec.type };
    if (spec.enum) schema.enum = spec.enum;
    if (spec.minimum !== undefined) schema.minimum = spec.minimum;
    if (spec.maximum !== undefined) schema.maximum = spec.maximum;
    if (spec.pattern) schema.pattern = spec.pattern;
    const holder = { v: raw as unknown };
    const validate = ajv.compile({ type: 'object', properties: { v: schema } });
    if (!validate(holder)) {
      const why = (validate.errors ?? []).map((e) => e.message).join(', ');
      problems.push(spec.secret ? `${name} is invalid: ${why}` : `${name}=${JSON.stringify(redact(raw))} is invalid: ${why}`);
      continue;
    }
    out[spec.key] = holder.v;
  }
  out.outboundAllowPrivate ??= nodeEnv !== 'production';
  out.trustProxyHopsSet = out.trustProxyHops !== null && out.trustProxyHops !== undefined;
  out.trustProxyHops ??= 1;
  out.outboundAllowHosts = String(out.outboundAllowHosts ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  try {
    parseAllowedHosts(out.outboundAllowHosts as string[]);
  } catch (err) {
    problems.push(`OUTBOUND_ALLOW_HOSTS is invalid: ${(err as Error).message}`);
  }
  const queues = String(out.workerQueues ?? '')
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  const unknownQueues = queues.filter((q) => !(QUEUE_NAMES as readonly string[]).includes(q));
  if (unknownQueues.length) problems.push(`WORKER_QUEUES names unknown queues: ${unknownQueues.join(', ')} (known: ${QUEUE_NAMES.join(', ')})`);
  out.workerQueues = queues.length ? [...new Set(queues)] : [...QUEUE_NAMES];
  out.redisClusterNodes = String(out.redisClusterNodes ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const at = n.lastIndexOf(':');
      return Object.freeze({ host: n.slice(0, at), port: Number(n.slice(at + 1)) });
    });
  out.redisClusterNatMap = Object.freeze(
    Object.fromEntries(
      String(out.redisClusterNatMap ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
        .map((e) => {
          const [from, to] = e.split('=');
          const at = to.lastIndexOf(':');
          return [from, Object.freeze({ host: to.slice(0, at), port: Number(to.slice(at + 1)) })];
        }),
    ),
  );
  if (out.geocoder === 'google' && !out.googleGeocodingKey) {
    problems.push('GOOGLE_GEOCODING_KEY is required when GEOCODER is google');
  }
  if (out.smsProvider === 'http' && !out.smsHttpUrl) problems.push('SMS_HTTP_URL is required when SMS_PROVIDER is http');
  if (out.smsProvider === 'twilio' && (!out.twilioAccountSid || !out.twilioAuthToken || !out.twilioFrom)) {
    problems.push('TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM are required when SMS_PROVIDER is twilio');
  }
  out.smsAllowedPrefixes = String(out.smsAllowedPrefixes ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // D24: outbox keeps each code in clear in a table operators read; never where customers are real.
  if (out.smsProvider === 'outbox' && nodeEnv === 'production') {
    problems.push('SMS_PROVIDER=outbox is refused when NODE_ENV is production (it keeps tracking codes in clear); set http or twilio');
  }
  // A code and the provider's credentials would cross the network in clear.
  if (nodeEnv === 'production' && out.smsProvider === 'http' && /^http:/i.test(String(out.smsHttpUrl))) {
    problems.push('SMS_HTTP_URL must be https:// when NODE_ENV is production (the codes and SMS_HTTP_TOKEN travel in it)');
  }
  if (nodeEnv === 'production' && out.smsProvider === 'twilio' && /^http:/i.test(String(out.twilioApiUrl))) {
    problems.push('TWILIO_API_URL must be https:// when NODE_ENV is production (the codes and TWILIO_AUTH_TOKEN travel in it)');
  }
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(out) as unknown as Config;
}

/**
 * The secrets left at their public default (published in this source file): fine for trying the
 * service out, never for production, where they are required (see src/main/banner.ts).
 */
export function publicSecretsInUse(cfg: Config): Array<'JWT_SECRET' | 'INTEGRITY_SECRET'> {
  const names: Array<'JWT_SECRET' | 'INTEGRITY_SECRET'> = [];
  if (cfg.jwtSecret === DEV_ONLY_SECRET) names.push('JWT_SECRET');
  if (cfg.integritySecret === DEV_ONLY_SECRET) names.push('INTEGRITY_SECRET');
  return names;
}

/**
 * D24 (decisions LIM-2): in production, TRUST_PROXY without TRUST_PROXY_HOPS takes the right-most
 * X-Forwarded-For entry, right for one proxy only; the process says so at start (and still starts).
 */
export function proxyHopsWarning(cfg: Pick<Config, 'nodeEnv' | 'trustProxy' | 'trustProxyHopsSet'>): string | null {
  if (cfg.nodeEnv !== 'production' || !cfg.trustProxy || cfg.trustProxyHopsSet) return null;
  return 'TRUST_PROXY is on without TRUST_PROXY_HOPS: the client address is the right-most X-Forwarded-For entry (one proxy in front). Set TRUST_PROXY_HOPS to the number of proxies in front of the API.';
}

let cached: Config | undefined;

/** The process's configuration; the first call validates it (exits the process on error in entry points). */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** For tests: rebuild the cached configuration from the current environment. */
export function resetConfig(): void {
  cached = undefined;
}
