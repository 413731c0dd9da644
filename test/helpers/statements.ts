/**
 * The SQL statements a piece of code sends, counted at the pg driver (every
 * query of MikroORM and of raw SQL goes through pg.Client#query): the
 * set-based hot paths of issue 12 are held to a fixed number. Not a timing.
 */
import pg from 'pg';

type Query = (...args: unknown[]) => unknown;

export async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  const seen: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    seen.push(typeof q === 'string' ? q : String((q as { text?: string }).text ?? ''));
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.query = original;
  }
  return seen;
}
