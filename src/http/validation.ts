/**
 * Request validation with ajv (never hand-written typeof checks in handlers).
 * A schema is compiled once; a failing body becomes a 400 RequestError with
 * the message the caller gives for the first error, in the route's envelope
 * (controller `{status: false, msg, ...extra}` unless the route set another).
 */
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { RequestError } from './errors.js';

export const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: true, removeAdditional: false, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);

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
 * Validates `body` against `schema`; throws a 400 RequestError with the
 * message `message` builds (and `extra` body fields) otherwise. Returns the
 * body untyped (for a schema picked at run time); see validateBody.
 */
export function checkBody(
  schema: object,
  body: unknown,
  message: (error: ErrorObject) => string,
  status = 400,
  extra: Record<string, unknown> = {},
): unknown {
  const validate = compile(schema);
  const value = body ?? {};
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
