/**
 * Request validation with ajv (never hand-written typeof checks in handlers).
 * A schema is compiled once; a failing body becomes a 400 controller envelope
 * with the message the caller gives for the first error.
 */
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { findUnstorableText, unstorableTextMessage } from '../text.js';
import { controllerError } from './errors.js';

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
 * D19: throws the route's 400 `{status:false, msg, ...extra}` naming the first field or key of
 * `value` with a NUL or a lone surrogate (the one check h10's compiled validation can call too).
 */
export function assertStorable(value: unknown, status = 400, extra: Record<string, unknown> = {}): void {
  const unstorable = findUnstorableText(value);
  if (unstorable !== null) throw controllerError(status, unstorableTextMessage(unstorable), extra);
}

/**
 * Validates `body` against `schema`; throws a 400 `{status:false, msg, ...extra}`
 * built by `message` otherwise. First of all, a string or key anywhere in the body
 * (unknown fields too) with a NUL or a lone surrogate answers that 400 naming the
 * field (D19): such text never reaches PostgreSQL.
 */
export function validateBody<const S extends JSONSchema>(
  schema: S,
  body: unknown,
  message: (error: ErrorObject) => string,
  status?: number,
  extra?: Record<string, unknown>,
): FromSchema<S>;
export function validateBody(
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
    throw controllerError(status, first ? message(first) : 'SOLICITUD INVÁLIDA', extra);
  }
  return value;
}

export type { JSONSchemaType, ErrorObject };
