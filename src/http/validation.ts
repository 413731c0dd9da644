/**
 * Request validation with ajv (never hand-written typeof checks in handlers).
 * A schema is compiled once; a failing body becomes a 400 RequestError with
 * the message the caller gives for the first error, in the route's envelope
 * (controller `{status: false, msg, ...extra}` unless the route set another).
 */
import type { ErrorObject, JSONSchemaType, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { findUnstorableText, unstorableTextMessage } from '../text.js';
import { RequestError } from './errors.js';

/** JSON Schema 2020-12, the dialect of OpenAPI 3.1 (the document's schemas are compiled here). */
export const ajv = new Ajv2020({ allErrors: false, coerceTypes: false, useDefaults: true, removeAdditional: false, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

export function compile(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/**
 * D19: throws the route's 400 (in the route's envelope, with `extra` body fields) naming the first
 * field or key of `value` with a NUL or a lone surrogate: such text never reaches PostgreSQL.
 */
export function assertStorable(value: unknown, status = 400, extra: Record<string, unknown> = {}): void {
  const unstorable = findUnstorableText(value);
  if (unstorable !== null) throw new RequestError(status, unstorableTextMessage(unstorable), extra);
}

/**
 * Validates `body` against `schema`; throws a 400 RequestError with the
 * message `message` builds (and `extra` body fields) otherwise. First of all, a
 * string or key anywhere in the body (unknown fields too) with a NUL or a lone
 * surrogate answers that 400 naming the field (D19).
 */
export function checkBody(
  schema: object,
  body: unknown,
  message: (error: ErrorObject) => string,
  status = 400,
  extra: Record<string, unknown> = {},
): unknown {
  const value = body ?? {};
  assertStorable(value, status, extra);
  const validate = compile(schema);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    throw new RequestError(status, first ? message(first) : 'SOLICITUD INVÁLIDA', extra);
  }
  return value;
}

/** checkBody, typed by the schema (json-schema-to-ts). */
export const validateBody = checkBody as <const S extends JSONSchema>(
  schema: S,
  body: unknown,
  message: (error: ErrorObject) => string,
  status?: number,
  extra?: Record<string, unknown>,
) => FromSchema<S>;

export type { JSONSchemaType, ErrorObject };
