/**
 * D21 (issue 30): an error that says PostgreSQL or Redis is away (refused,
 * reset, timed out, closed, not ready), not that the request or the code is
 * wrong. Such a request is answered 503 in its route's envelope with
 * UNAVAILABLE_MESSAGE and `Retry-After` (src/api/errorTable.ts), never 500.
 * Recognised by the drivers' own marks (socket error codes, PostgreSQL's
 * SQLSTATE classes, the pool's and ioredis' error names and texts), through
 * the wrappers' `cause`s. Imports nothing, so every layer may ask.
 */
export const UNAVAILABLE_MESSAGE = 'SERVICIO TEMPORALMENTE NO DISPONIBLE';
/** seconds a client is asked to wait before trying again */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED', 'ENOTCONN']);
/** SQLSTATE: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 53300 too many connections, 57014 canceled (a timeout) */
const SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
/** ClusterAllFailedError: no master of a Redis Cluster answered the client's slots query (D22) */
const NAMES = new Set(['KnexTimeoutError', 'ConnectionException', 'MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const TEXTS = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Query read timeout/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /Command timed out/i,
  /Redis not ready after/i,
  /Reached the max retries per request limit/i,
  /Client has encountered a connection error/i,
  /Timeout acquiring a connection/i,
  /Connection ended unexpectedly/i,
  // a Redis Cluster's client (D22): no slots known yet, no seed node answering, the cluster itself down
  /Cluster isn't ready/i,
  /None of startup nodes is available/i,
  /Failed to refresh slots cache/i,
  /^CLUSTERDOWN/,
];

function own(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; sqlState?: unknown };
  const code = typeof e.code === 'string' ? e.code : typeof e.sqlState === 'string' ? e.sqlState : '';
  if (SOCKET_CODES.has(code) || SQL_STATES.has(code) || code.startsWith('08')) return true;
  if (typeof e.name === 'string' && NAMES.has(e.name)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return TEXTS.some((t) => t.test(message));
}

export function isOutage(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (own(e)) return true;
    const w = e as { cause?: unknown; previous?: unknown; originalError?: unknown; lastNodeError?: unknown; errors?: unknown };
    queue.push(w.cause, w.previous, w.originalError, w.lastNodeError);
    if (Array.isArray(w.errors)) queue.push(...(w.errors as unknown[]));
  }
  return false;
}
