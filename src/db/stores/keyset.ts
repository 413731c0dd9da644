/**
 * The outbox sweeper's lookups (src/domain/outbox/sweep.ts) read their rows in
 * keyset pages: each returns `id` and its sort key `k` (as text: microseconds
 * kept) after the cursor (`k`, `id`), and takes its own parameters, then the
 * cursor's (k, k, id) and the page's size.
 */

/** A row of a keyset page: its id and its sort key. */
export interface KeysetRow {
  id: string;
  k: string;
}

/** Where a page starts (the last row of the page before). */
export interface KeysetCursor {
  k: string;
  id: string;
}

/** A moment `?` milliseconds ago. */
export const AGO = `now() - make_interval(secs => ? / 1000.0)`;

/** After the keyset cursor (`k`, `id`) > (?, ?) (the `k >= ?` lets the partial index serve the range). */
export const after = (k: string, id: string) => `${k} >= ?::timestamptz and (${k}, ${id}) > (?::timestamptz, ?::uuid)`;

/** The cursor's and the page's parameters, after the lookup's own. */
export const pageParams = (cursor: KeysetCursor, limit: number) => [cursor.k, cursor.k, cursor.id, limit];
