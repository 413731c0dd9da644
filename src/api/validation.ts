/**
 * Input validation with ajv (never hand-written typeof checks in handlers),
 * the same for HTTP (src/http/mount.ts) and the socket (invoke.ts): the D19
 * NUL/lone-surrogate check, then the operation's compiled schema; a failure
 * becomes a 400 RequestError with the operation's wording for the first
 * error, in the operation's envelope.
 */
import type { ErrorObject, JSONSchemaType, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { findUnstorableText, unstorableTextMessage } from '../text.js';
import { RequestError } from '../envelopes.js';
import type { OperationDecl } from './operation.js';

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

export type { JSONSchemaType, ErrorObject };

/** The validator of an operation's input (its schema, the document's component of that name). */
export function validatorOf(op: OperationDecl): ValidateFunction {
  if (!op.input) throw new Error(`${op.operationId} declares no input`);
  return compile(op.input.schema.schema as object);
}

/**
 * D19 then the schema: each of `raw` (the body, the query string: unknown
 * fields and keys too, not only what the input takes from them) is checked
 * for a NUL or a lone surrogate, then `input` against the operation's schema.
 * Throws the operation's 400; returns the input.
 */
export function validateInput(op: OperationDecl, input: unknown, raw: unknown[] = [input]): unknown {
  for (const part of raw) assertStorable(part ?? {}, 400, op.invalid?.extra);
  const validate = validatorOf(op);
  if (!validate(input)) {
    const first = validate.errors?.[0];
    throw new RequestError(400, first && op.invalid ? op.invalid.message(first) : 'SOLICITUD INVÁLIDA', op.invalid?.extra);
  }
  return input;
}

/** The property an error is about. */
export function fieldOf(e: ErrorObject): string {
  if (e.keyword === 'required') return String(e.params.missingProperty);
  return e.instancePath.split('/')[1] ?? '';
}

type FieldMessage = string | ((e: ErrorObject) => string);

/** Message of a failed body: `messages[field]` when given (e.g. the spec's "missing uuid"), else a generic one. */
export function fieldMessages(messages: Record<string, FieldMessage>) {
  return (e: ErrorObject): string => {
    const field = fieldOf(e);
    const m = messages[field];
    if (typeof m === 'function') return m(e);
    return m ?? (field ? `EL CAMPO '${field}' NO ES VÁLIDO` : 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON');
  };
}
