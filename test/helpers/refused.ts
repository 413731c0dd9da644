/**
 * A guard over the whole run (root hooks, test/setup.ts): a statement that
 * PostgreSQL refuses as malformed (SQLSTATE class 42: a syntax error, an
 * unknown table, column or function, a type it cannot resolve) is a bug in
 * our SQL, whatever the code that sent it did with the error: a job that
 * fails is retried by BullMQ, a caller may fall back, and a test of the
 * outcome can still pass (a state notification's wait did, issue 12,
 * eleventh part). Every such refusal seen at the pg driver (every query of
 * MikroORM and of raw SQL goes through pg.Client#query, as in statements.ts)
 * is recorded with the test that was running; the run fails at its end with
 * the list, but for tests that declare they send such statements on purpose
 * (`refusalsExpected`). Processes the tests spawn are not watched.
 */
import pg from 'pg';

type Query = (...args: unknown[]) => unknown;

/** Class 42 codes that say a statement is wrong, not that an object exists already or a privilege is missing. */
const NOT_MALFORMED = new Set(['42501', '42P03', '42P04', '42P05', '42P06', '42P07', '42710', '42712', '42723']);

export interface Refusal {
  test: string;
  code: string;
  message: string;
  statement: string;
}

const refusals: Refusal[] = [];
const expected = new Set<string>();
let current = '(outside a test)';

/** Called by the root beforeEach hook: refusals from now on are this test's. */
export function testStarted(title: string): void {
  current = title;
}

/** Called by the root afterEach hook: refusals from now on (after-all hooks, work the test left running) are not the test's to excuse. */
export function testEnded(title: string): void {
  current = `(after ${title})`;
}

/** For a test that sends statements PostgreSQL must refuse (to check what follows): its refusals are not failures. */
export function refusalsExpected(): void {
  expected.add(current);
}

function note(err: unknown, statement: string): void {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('42') && !NOT_MALFORMED.has(code)) {
    refusals.push({ test: current, code, message: String(message), statement });
  }
}

/** Watches every query of the pg driver from now on (observing only: results and errors reach the caller unchanged). */
export function watchRefusedStatements(): void {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const statement = typeof q === 'string' ? q : String((q as { text?: string } | undefined)?.text ?? '');
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = function (this: unknown, err: unknown, ...rest: unknown[]) {
        if (err) note(err, statement);
        return (callback as (...a: unknown[]) => unknown).call(this, err, ...rest);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    // a branch of its own: the caller's promise rejects as before
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, (err: unknown) => note(err, statement));
    return result;
  };
}

/** The refusals no test declared. */
export function unexpectedRefusals(): Refusal[] {
  return refusals.filter((r) => !expected.has(r.test));
}
