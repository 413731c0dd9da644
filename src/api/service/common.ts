/** What the service operations after acceptance share (spec 4.8, D6): the uuid field, a coordinate, their answers for a refused or unknown offer. */
import { OFFER_NOT_FOUND } from '../../domain/offers/lifecycle/ownership.js';
import { controller } from '../document/responses.js';
import type { ResponseDecl } from '../operation.js';

export const text = (max: number) => ({ type: 'string', maxLength: max }) as const;
export const uuidField = { type: 'string', minLength: 1, maxLength: 64 } as const;
/** A number, a numeric string, or empty (null, '' or 0: missing, spec 2.1). */
export const coordinate = { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }] } as const;

/** The spec's 400 when the uuid is missing, naming what it was needed for. */
export const uuidMissing = (what: string) => `NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA ${what}`;

/** The error answers of a service operation: its 500 text `failure`. */
export const operationErrors = (failure: string): Record<number, ResponseDecl> => ({
  400: controller('Missing or invalid data', {}),
  403: controller('The service is not in a state that allows it', {}),
  404: controller('Offer not found (or not the caller’s)', { notFound: OFFER_NOT_FOUND }),
  500: controller('Failure', { failure }),
});
