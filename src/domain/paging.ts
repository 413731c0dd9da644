/**
 * Paged lists (issue 29.9, decisions LIM-6): POST /queries/history, GET /webhooks/deliveries and
 * GET /centrales/servicios read a page with OFFSET; a page whose last row lies beyond
 * MAX_LIST_DEPTH (src/limits.ts) is refused with `list.too-deep` (400) before any query runs.
 */
import { MAX_LIST_DEPTH, pageOffset } from '../limits.js';
import { DomainError } from './errors.js';

/** The rows to skip for `page` of `pageSize`; throws `list.too-deep` beyond MAX_LIST_DEPTH. */
export function offsetOfPage(page: number, pageSize: number): number {
  const offset = pageOffset(page, pageSize);
  if (offset === null) throw new DomainError('list.too-deep', { maxPage: Math.floor(MAX_LIST_DEPTH / pageSize), maxRows: MAX_LIST_DEPTH });
  return offset;
}
