import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';
import { config } from '../config/index.js';

export type { Logger };

/** A database error's fields that say what failed without saying with which data. */
const SAFE_DB_FIELDS = ['code', 'sqlState', 'severity', 'table', 'constraint', 'column', 'dataType', 'schema', 'routine', 'errno'] as const;

/** Errors from PostgreSQL, the pg driver, knex or MikroORM: their message and props carry the SQL and its values. */
function isDatabaseError(err: Record<string, unknown>): boolean {
  if (typeof err.sqlState === 'string' || 'sql' in err || 'parameters' in err || 'bindings' in err || 'query' in err) return true;
  const name = typeof err.name === 'string' ? err.name : '';
  if (name === 'DatabaseError' || /Exception$/.test(name)) return true;
  return typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) && typeof err.severity === 'string';
}

/** The stack's frames only (`    at …` lines), without the message lines that may quote SQL or values. */
function framesOnly(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  return stack
    .split('\n')
    .filter((l) => l.trim().startsWith('at '))
    .join('\n');
}

/**
 * pino's `err` serializer, except that a database error keeps only its class, SQLSTATE code,
 * table, constraint, column and stack frames: never the SQL text, its parameter values (customer
 * data) or PostgreSQL's message, which may quote a value (issue 8.3). Causes are treated alike.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) && (typeof err !== 'object' || err === null)) return err;
  const e = err as unknown as Record<string, unknown>;
  if (!isDatabaseError(e)) {
    const out = stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
    if (e.cause !== undefined) {
      // pino would append every cause's message and stack to this error's: each cause is serialized on its own instead.
      out.message = e.message;
      out.stack = e.stack;
      out.cause = depth < 5 ? serializeError(e.cause, depth + 1) : undefined;
    }
    return out;
  }
  const type = (err as Error).constructor?.name ?? 'Error';
  const out: Record<string, unknown> = { type, message: `database error (${typeof e.code === 'string' ? e.code : 'no code'}): details withheld` };
  for (const k of SAFE_DB_FIELDS) if (typeof e[k] === 'string' || typeof e[k] === 'number') out[k] = e[k];
  const stack = framesOnly(e.stack);
  if (stack) out.stack = stack;
  if (e.cause !== undefined && depth < 5) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/** Options every logger of the service is built with (the process's, and tests' through the runtime). */
export function loggerOptions(level: string): LoggerOptions {
  return { level, base: { pid: process.pid }, serializers: { err: serializeError } };
}

let root: Logger | undefined;

/** The process's logger (JSON lines on stdout). */
export function logger(): Logger {
  root ??= pino(loggerOptions(config().logLevel));
  return root;
}
