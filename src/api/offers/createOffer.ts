/**
 * POST /oferta (spec 4.1, D1, D3): a generator publishes an offer. Its body's
 * schema, the message of each validation failure (spec 4.1 texts kept
 * exactly; our own where the spec is silent) and the wording of the offer's
 * errors; POST /asignacion-directa extends the schema. The domain's rules:
 * src/domain/offers/create/.
 */
import { createOffer as create, type CreateOutcome } from '../../domain/offers/create/create.js';
import type { ErrorObject } from 'ajv';
import { PHONE_PATTERN, UUID_PATTERN } from '../../domain/offers/create/input.js';
import { MAX_COORDINATE_LENGTH, NUMERIC_OR_EMPTY, rangeText, type Axis } from '../../geo/coordinates.js';
import { OfferResponseEntry, ref, str } from '../document/components.js';
import { controller, geocoderUnavailable, msg } from '../document/responses.js';
import { GEOCODER_UNAVAILABLE } from '../../geocoding/geocoder.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { quotaExceeded, takeOfferQuota } from './quota.js';

export const OFFER_MESSAGES = {
  received: 'SE HA RECIBIDO EXITOSAMENTE LA OFERTA DEL SERVICIO',
  processing: 'LA OFERTA YA ESTÁ SIENDO PROCESADA',
  alreadyOffered: 'EL SERVICIO YA FUE OFERTADO',
  uuidMissing: "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA EJECUTAR LA OFERTA DEL SERVICIO",
  uuidInvalid: "EL CAMPO 'uuid' DEBE SER UN UUID VÁLIDO (POR EJEMPLO 0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f)",
  typeMissing: "EL CAMPO 'tipoServicio' ES REQUERIDO PARA REALIZAR LA OFERTA DEL SERVICIO",
  typeInvalid: "EL CAMPO 'tipoServicio' DEBE SER EL ID DE UN TIPO DE SERVICIO (CONSULTA GET /types)",
  typeUnknown: (id: number) => `EL TIPO DE SERVICIO ${id} NO EXISTE (CONSULTA GET /types)`,
  originMissing: 'ES NECESARIO LOS DATOS DE LA DIRECCIÓN DE ORIGEN O LAS COORDENADAS DE LA MISMA',
  originNotFound: 'LA DIRECCIÓN DE ORIGEN NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS',
  destinationNotFound:
    "LA DIRECCIÓN DE DESTINO NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS U OMITE EL CAMPO 'direccionDestino'",
  notAnObject: 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON',
  notANumber: (f: string) => `EL CAMPO '${f}' DEBE SER UN NÚMERO`,
  notAnInteger: (f: string) => `EL CAMPO '${f}' DEBE SER UN NÚMERO ENTERO NO NEGATIVO`,
  notText: (f: string) => `EL CAMPO '${f}' DEBE SER UN TEXTO`,
  notAnObjectField: (f: string) => `EL CAMPO '${f}' DEBE SER UN OBJETO`,
  tooLong: (f: string, max: number) => `EL CAMPO '${f}' EXCEDE LA LONGITUD MÁXIMA DE ${max} CARACTERES`,
  outOfRange: (f: string, axis: Axis) => `EL CAMPO '${f}' DEBE ESTAR ENTRE ${rangeText(axis)}`,
  badDate: "EL CAMPO 'fechaCita' DEBE SER UNA FECHA VÁLIDA CON EL FORMATO AAAA-MM-DD",
  badTime: "EL CAMPO 'horaCita' DEBE SER UNA HORA VÁLIDA CON EL FORMATO HH:MM (24 HORAS)",
  badPhone: "EL CAMPO 'telefonoCliente' DEBE SER UN TELÉFONO DE 7 A 15 DÍGITOS, CON '+' INICIAL OPCIONAL (SE ADMITEN ESPACIOS Y GUIONES ENTRE DÍGITOS)",
} as const;

const text = (max: number) => ({ type: ['string', 'null'], maxLength: max }) as const;
const coord = { type: ['number', 'string', 'null'], maxLength: MAX_COORDINATE_LENGTH, pattern: NUMERIC_OR_EMPTY } as const;
const identifier = { type: ['integer', 'string', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER, maxLength: 32, pattern: '^\\s*(?:[0-9]{1,15}\\s*)?$' } as const;

/**
 * allOf keeps the order of the checks: uuid first, then tipoServicio, then
 * everything else (ajv stops at the first failure).
 */
export const offerSchema = {
  type: 'object',
  allOf: [
    { required: ['uuid'], properties: { uuid: { type: 'string', minLength: 1, maxLength: 36, pattern: UUID_PATTERN } } },
    {
      required: ['tipoServicio'],
      properties: {
        tipoServicio: { type: ['string', 'integer'], minLength: 1, maxLength: 255, minimum: 1, maximum: 2147483647, pattern: '^\\s*[0-9]{1,9}\\s*(,.*)?$' },
      },
    },
    {
      properties: {
        latitudOrigen: coord,
        longitudOrigen: coord,
        direccionOrigen: text(500),
        descripcionServicio: text(2000),
        puntoReferenciaOrigen: text(500),
        direccionDestino: text(500),
        latitudDestino: coord,
        longitudDestino: coord,
        puntoReferenciaDestino: text(500),
        ciudad: text(255),
        departamento: text(255),
        fechaCita: { type: ['string', 'null'], maxLength: 32, pattern: '^\\s*(?:[0-9]{4}-[0-9]{2}-[0-9]{2}\\s*)?$' },
        horaCita: { type: ['string', 'null'], maxLength: 32, pattern: '^\\s*(?:(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9])?\\s*)?$' },
        observaciones: text(5000),
        vehiculo: {
          type: ['object', 'null'],
          properties: {
            marca: text(100),
            linea: text(100),
            detalleLinea: text(200),
            modelo: text(50),
            tipoCombustible: text(50),
            blindaje: text(50),
          },
        },
        guardian: text(10),
        ofertante: text(120),
        subOfertante: text(120),
        internal: identifier,
        global: identifier,
        socketId: text(255),
        telefonoCliente: { type: ['string', 'null'], maxLength: 32, anyOf: [{ type: 'null' }, { maxLength: 0 }, { pattern: PHONE_PATTERN }] },
      },
    },
  ],
} as const;

const NUMERIC_FIELDS = new Set(['latitudOrigen', 'longitudOrigen', 'latitudDestino', 'longitudDestino']);
const INTEGER_FIELDS = new Set(['internal', 'global']);

/** The 400 message of the first schema failure. */
export function offerErrorMessage(e: ErrorObject): string {
  if (e.keyword === 'required') {
    return (e.params as { missingProperty: string }).missingProperty === 'uuid' ? OFFER_MESSAGES.uuidMissing : OFFER_MESSAGES.typeMissing;
  }
  const field = e.instancePath.slice(1).replaceAll('/', '.');
  if (field === '') return OFFER_MESSAGES.notAnObject;
  if (field === 'uuid') return e.keyword === 'minLength' ? OFFER_MESSAGES.uuidMissing : OFFER_MESSAGES.uuidInvalid;
  if (field === 'tipoServicio') return e.keyword === 'minLength' ? OFFER_MESSAGES.typeMissing : OFFER_MESSAGES.typeInvalid;
  if (e.keyword === 'maxLength') return OFFER_MESSAGES.tooLong(field, (e.params as { limit: number }).limit);
  if (NUMERIC_FIELDS.has(field)) return OFFER_MESSAGES.notANumber(field);
  if (INTEGER_FIELDS.has(field)) return OFFER_MESSAGES.notAnInteger(field);
  if (field === 'fechaCita') return OFFER_MESSAGES.badDate;
  if (field === 'horaCita') return OFFER_MESSAGES.badTime;
  if (field === 'telefonoCliente') return OFFER_MESSAGES.badPhone;
  if (field === 'vehiculo') return OFFER_MESSAGES.notAnObjectField(field);
  return OFFER_MESSAGES.notText(field);
}

export const OfferInput = named('OfferInput', offerSchema);

export function creationBody(outcome: CreateOutcome): Record<string, unknown> {
  return outcome.kind === 'created'
    ? { status: true, msg: OFFER_MESSAGES.received }
    : { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: outcome.uuid, offersResponses: outcome.offersResponses } };
}

export const createOffer = operation({
  method: 'post',
  path: `${API}/oferta`,
  operationId: 'createOffer',
  summary: 'Publish an offer of service (spec 4.1)',
  description: 'Opens the 30-second response window (D1) and distributes the offer to the centrals and technicians that cover its origin.',
  tag: 'Ofertas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: OfferInput, from: 'json' },
  invalid: { message: offerErrorMessage },
  responses: {
    200: {
      description: 'Offer received, or the uuid is already under evaluation (with the responses so far)',
      schema: {
        type: 'object',
        required: ['status', 'msg'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'object',
            required: ['uuid', 'offersResponses'],
            properties: { uuid: str(36), offersResponses: { type: 'array', items: ref(OfferResponseEntry) } },
          },
        },
      },
      examples: {
        received: { status: true, msg: OFFER_MESSAGES.received },
        processing: { status: true, msg: OFFER_MESSAGES.processing, data: { uuid: '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f', offersResponses: [] } },
      },
    },
    400: controller('Missing or invalid data, an address that cannot be geocoded, or a uuid already offered', {
      uuidMissing: OFFER_MESSAGES.uuidMissing,
      originMissing: OFFER_MESSAGES.originMissing,
      originNotFound: OFFER_MESSAGES.originNotFound,
      typeMissing: OFFER_MESSAGES.typeMissing,
      alreadyOffered: OFFER_MESSAGES.alreadyOffered,
    }),
    429: quotaExceeded,
    503: geocoderUnavailable(GEOCODER_UNAVAILABLE),
  },
  handle: async (rt, caller, input) => {
    await takeOfferQuota(rt, apiUserOf(caller));
    return creationBody(await create(rt, apiUserOf(caller), input));
  },
});
