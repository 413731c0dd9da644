/**
 * Builders of an operation's declared answers, so that each declaration
 * lists its statuses with the texts of its own wording (never retyped): the
 * controller envelope `{status: false, msg}`, the data envelope `{status,
 * data}`, the `Done` success body, HTML pages and redirects.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import type { ResponseDecl } from '../operation.js';
import { ControllerError, DataAnswer, Done, ref, str } from './components.js';

export const msg = str(2000);

/** Controller-envelope answers, one example per message. */
export const controller = (description: string, examples: Record<string, string>, extra: Record<string, unknown> = {}): ResponseDecl => ({
  description,
  schema: ControllerError,
  examples: Object.fromEntries(Object.entries(examples).map(([k, m]) => [k, { status: false, msg: m, ...extra }])),
});

/** Data-envelope answers `{status, data}` (4.3), one example per message. */
export const data = (description: string, examples: Record<string, string>, ok = false): ResponseDecl => ({
  description,
  schema: DataAnswer,
  examples: Object.fromEntries(Object.entries(examples).map(([k, m]) => [k, { status: ok, data: m }])),
});

/** `{status: true, msg}` and any `extra` fields: they are required, so the example carries a value of each (`extraExample`). */
export const done = (description: string, example: string, extra: Record<string, JSONSchema> = {}, extraExample: Record<string, unknown> = {}): ResponseDecl => ({
  description,
  schema: Object.keys(extra).length
    ? ({ allOf: [ref(Done), { type: 'object', required: Object.keys(extra), properties: extra }] } as JSONSchema)
    : Done,
  examples: { ok: { status: true, msg: example, ...extraExample } },
});

/** The 503 of an operation that geocodes an address (D9): the geocoder cannot answer. */
export const geocoderUnavailable = (message: string): ResponseDecl => controller('The geocoder cannot answer; send coordinates or try later (D9)', { geocoder: message });

export const html = (description: string): ResponseDecl => ({ description, contentType: 'text/html' as const });

export const redirect = (description: string): ResponseDecl => ({
  description,
  headers: { Location: { description: 'where the browser goes', schema: str(2048) } },
});

/** A schema or null. */
export const nullable = (s: JSONSchema): JSONSchema => ({ anyOf: [s, { type: 'null' }] }) as JSONSchema;

/** Issue 29.9 (LIM-6): a page beyond the rows a list may be read to (src/limits.ts MAX_LIST_DEPTH). */
export const pageTooDeep = (maxPage: number, maxRows: number) =>
  `LA PÁGINA NO PUEDE SER MAYOR QUE ${maxPage} (${maxRows} REGISTROS COMO MÁXIMO); ACOTE LA CONSULTA CON SUS FILTROS`;

/** A success in the controller envelope: `{status: true, msg, data: <data>}`. */
export const succeeded = (data: JSONSchema): JSONSchema =>
  ({ type: 'object', required: ['status', 'msg', 'data'], properties: { status: { const: true }, msg, data } }) as JSONSchema;

/** A page of a list in the controller envelope: `{status: true, msg, data: {page, pageSize, total, <key>: [items]}}`. */
export const page = (key: string, items: { name: string }): JSONSchema =>
  succeeded({
    type: 'object',
    required: ['page', 'pageSize', 'total', key],
    properties: {
      page: { type: 'integer' },
      pageSize: { type: 'integer' },
      total: { type: 'integer' },
      [key]: { type: 'array', items: { $ref: `#/components/schemas/${items.name}` } },
    },
  } as JSONSchema);
