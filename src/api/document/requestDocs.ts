/**
 * What the document says of each request field, and a realistic example of
 * each request body (issue 31 item 5): Swagger UI's "Try it out" fills the
 * body from the example, not from the schema's patterns (which gave
 * `tipoServicio` regex junk and 0,0 coordinates). The input schemas stay the
 * validators' (src/api/** declares them); the document's copy of each gets the
 * descriptions below wherever its own schema has none, and its request body
 * gets the example. test/api/document/requestDocs.test.ts fails when a field
 * of any request body has no description, or an example is missing or is
 * refused by the operation's own validation.
 */

/** Field descriptions shared by several bodies, by field path. */
const OFFER_FIELDS: Record<string, string> = {
  uuid: 'The offer’s id, chosen by the generator: a UUID (v4 recommended). Offering the same uuid again answers per D3.',
  tipoServicio: 'A service type id from GET /types (a comma-separated list is accepted: only the first id is used).',
  latitudOrigen: 'Latitude of the place of service, decimal degrees. Required unless `direccionOrigen` is sent; 0 or empty counts as missing.',
  longitudOrigen: 'Longitude of the place of service, decimal degrees. Required unless `direccionOrigen` is sent; 0 or empty counts as missing.',
  direccionOrigen: 'Address of the place of service; geocoded (city and department filled) when no valid coordinates are sent.',
  descripcionServicio: 'What is needed; defaults to the service type’s name.',
  puntoReferenciaOrigen: 'A landmark near the place of service, for the technician.',
  direccionDestino: 'Destination address (towing, chosen driver); geocoded when sent without valid coordinates.',
  latitudDestino: 'Destination latitude, decimal degrees.',
  longitudDestino: 'Destination longitude, decimal degrees.',
  puntoReferenciaDestino: 'A landmark near the destination.',
  ciudad: 'City of the place of service (filled automatically when the origin is geocoded).',
  departamento: 'Department (region) of the place of service (filled automatically when the origin is geocoded).',
  fechaCita: 'Appointment date `YYYY-MM-DD`; empty for an immediate service.',
  horaCita: 'Appointment time `HH:MM` (24 h), with `fechaCita`.',
  observaciones: 'Free comments for the provider; the vehicle’s data is prepended when `vehiculo` is sent.',
  vehiculo: 'The customer’s vehicle (spec 2.2), sent to the technician with the offer.',
  'vehiculo.marca': 'Make.',
  'vehiculo.linea': 'Line (model family).',
  'vehiculo.detalleLinea': 'Trim or version.',
  'vehiculo.modelo': 'Model year.',
  'vehiculo.tipoCombustible': 'Fuel type.',
  'vehiculo.blindaje': 'Armour level, when armoured.',
  guardian: '`SI` marks the offer as priority (a wider search radius); default `NO`.',
  ofertante: 'Who offers; defaults to the business name of the credential.',
  subOfertante: 'Appended to the offerer as `Ofertante - Subofertante`.',
  internal: 'The generator’s internal identifier of the service (searchable with autNumber in the history).',
  global: 'The generator’s global identifier of the service (searchable with autNumber in the history).',
  socketId: 'A socket id that receives the responses in real time when the uuid already existed.',
  telefonoCliente: 'The customer’s mobile phone (7–15 digits, optional `+`, spaces and dashes ignored): the SMS code for the customer page goes there (D16).',
};

const COORD_TECH = {
  latitudTecnico: 'The technician’s latitude now, decimal degrees (recorded in the audit trail).',
  longitudTecnico: 'The technician’s longitude now, decimal degrees.',
};

/** Descriptions by request schema name, then field path (`a.b` nested, `a[]` an array's items). */
export const FIELD_DESCRIPTIONS: Record<string, Record<string, string>> = {
  OfferInput: OFFER_FIELDS,
  DirectAssignmentInput: {
    ...OFFER_FIELDS,
    dniPrestador: 'Tax id (NIT) of the central the service is assigned to.',
    dniTecnico: 'Document of one of that central’s technicians, when the generator names one (D20: else the central chooses).',
  },
  OfferResponsesInput: { uuid: 'The offer’s uuid.' },
  AcceptanceInput: {
    id: 'The uuid of the offer being accepted.',
    dniPrestador: 'Tax id (NIT) of the accepting central.',
    dniTecnico: 'Document of the technician who takes the service.',
    tiempoLlegadaSitio: 'Minutes the technician needs to reach the place of service (0–1440); shown to the customer, counted down (CUS-2).',
    ...COORD_TECH,
  },
  AssignmentInput: {
    uuid: 'The accepted offer’s uuid.',
    observaciones: 'Notes of the assignment for the central.',
    placa: 'The vehicle plate the provider sends; shown to the customer.',
  },
  WithdrawalInput: { uuid: 'The offer’s uuid.', motivo: 'Why the offer is withdrawn.' },
  StopInput: {
    uuid: 'The offer’s uuid.',
    direccion: 'The stop’s address; geocoded when no valid coordinates are sent.',
    latitud: 'The stop’s latitude, decimal degrees.',
    longitud: 'The stop’s longitude, decimal degrees.',
    puntoReferencia: 'A landmark near the stop.',
  },
  ProgressInput: {
    id: 'The service’s offer uuid.',
    estado: '`EN_CAMINO` (on the way) or `EN_SITIO` (arrived).',
    ...COORD_TECH,
  },
  TechnicianChangeInput: { dniTecnico: 'Document of the central’s technician who takes the service over.' },
  PositionInput: {
    dniTecnico: 'Document of the technician reporting.',
    latitud: 'Latitude, decimal degrees.',
    longitud: 'Longitude, decimal degrees.',
    disponible: 'Whether the technician takes new offers.',
  },
  FinalizeInput: { uuid: 'The service’s offer uuid.' },
  TechnicianTokenInput: { dniTecnico: 'Document of the central’s technician the token is for.' },
  HistoryInput: {
    line: 'A business line’s code (GET /queries/history-options).',
    autNumber: 'An offer uuid, or its `internal` or `global` identifier.',
    estado: 'Only services in this state.',
    desde: 'From this date (`YYYY-MM-DD`) or moment (ISO 8601).',
    hasta: 'Up to this date (`YYYY-MM-DD`) or moment (ISO 8601).',
    page: 'Page number, from 1.',
    pageSize: 'Rows per page (default 50, at most 500).',
  },
  LoginInput: { username: 'The operator’s username.', password: 'The operator’s password.' },
  TrackingCodeInput: {
    expediente: 'The service’s code (`codigoServicio`, e.g. SV-7K3M9Q) or its offer uuid.',
    telefono: 'The customer’s phone as registered on the service (compared on its last 10 digits).',
  },
  TrackingTrackInput: { expediente: 'The service’s code or offer uuid.', code: 'The 6-digit code received by SMS.' },
  TrackingTokenInput: { token: 'The tracking token from POST /tracking/track.' },
  SurveyInput: { token: 'The tracking token from POST /tracking/track.', rating: 'From 1 (bad) to 5 (excellent).', comment: 'Optional comment.' },
  ChatMessageInput: { texto: 'The message, 1–2,000 characters.', clientId: 'The client’s own id of the message: a retry with the same id is not stored twice.' },
  ChatPageInput: { before: 'Messages older than this message id (paging back).', limit: 'How many messages, 1–100 (default 50).' },
  ChatReadInput: { hasta: 'Mark the other side’s messages read up to and including this id (default: all).' },
  TrackingPageCodeForm: { expediente: 'The service’s code or offer uuid.', telefono: 'The customer’s phone as registered on the service.' },
  TrackingPageVerifyForm: { expediente: 'The service’s code or offer uuid.', code: 'The 6-digit code received by SMS.' },
  TrackingPageMessageForm: { texto: 'The message to the technician.' },
  TrackingPageSurveyForm: { rating: 'From 1 (bad) to 5 (excellent).', comment: 'Optional comment.' },
  DeliveriesQuery: { uuid: 'Only the deliveries about this offer.', estado: 'Only deliveries in this state.', page: 'Page number, from 1 (50 per page).' },
  CentralServicesQuery: { estado: 'Only services in this state.', page: 'Page number, from 1.' },
};

const UUID = '3f8a4c2e-9b1d-4e7a-8c5f-2d6b0a1e9f47';
const OFFER_EXAMPLE = {
  uuid: UUID,
  tipoServicio: '1',
  latitudOrigen: 4.6847,
  longitudOrigen: -74.0469,
  direccionOrigen: 'Calle 100 # 15-20, Bogotá',
  descripcionServicio: 'Vehículo varado, no enciende',
  puntoReferenciaOrigen: 'Frente al centro comercial Andino',
  direccionDestino: 'Carrera 7 # 72-41, Bogotá',
  latitudDestino: 4.6553,
  longitudDestino: -74.0567,
  ciudad: 'Bogotá',
  departamento: 'Cundinamarca',
  fechaCita: '',
  observaciones: 'Cliente espera junto al vehículo',
  vehiculo: { marca: 'Mazda', linea: '3', detalleLinea: 'Touring', modelo: '2020', tipoCombustible: 'Gasolina', blindaje: 'No' },
  guardian: 'NO',
  internal: 120045,
  telefonoCliente: '+57 300 765 4321',
};

/** A realistic body for each request schema, by name; each passes its operation's validation. */
export const REQUEST_EXAMPLES: Record<string, Record<string, unknown>> = {
  OfferInput: OFFER_EXAMPLE,
  DirectAssignmentInput: { ...OFFER_EXAMPLE, dniPrestador: '901555111', dniTecnico: '1020304050' },
  OfferResponsesInput: { uuid: UUID },
  AcceptanceInput: { id: UUID, dniPrestador: '901555111', dniTecnico: '1020304050', tiempoLlegadaSitio: 12, latitudTecnico: '4.6761', longitudTecnico: '-74.0483' },
  AssignmentInput: { uuid: UUID, observaciones: 'Asignado a Grúas Andinas', placa: 'WNX482' },
  WithdrawalInput: { uuid: UUID, motivo: 'El cliente resolvió por su cuenta' },
  StopInput: { uuid: UUID, direccion: 'Calle 80 # 68-40, Bogotá', latitud: 4.6922, longitud: -74.0817, puntoReferencia: 'Estación de servicio' },
  ProgressInput: { id: UUID, estado: 'EN_CAMINO', latitudTecnico: 4.6761, longitudTecnico: -74.0483 },
  TechnicianChangeInput: { dniTecnico: '1030405060' },
  PositionInput: { dniTecnico: '1020304050', latitud: 4.6761, longitud: -74.0483, disponible: true },
  FinalizeInput: { uuid: UUID },
  TechnicianTokenInput: { dniTecnico: '1020304050' },
  HistoryInput: { line: 'VEH', estado: 'FINALIZADA', desde: '2026-11-01', hasta: '2026-11-30', page: 1, pageSize: 50 },
  LoginInput: { username: 'ops', password: 'change-me-now' },
  TrackingCodeInput: { expediente: 'SV-7K3M9Q', telefono: '300 765 4321' },
  TrackingTrackInput: { expediente: 'SV-7K3M9Q', code: '482913' },
  TrackingTokenInput: { token: 'trk_2bWm9x4VQe7nJc1pLr8sTa0yKd5hGf3uZo6iXq' },
  SurveyInput: { token: 'trk_2bWm9x4VQe7nJc1pLr8sTa0yKd5hGf3uZo6iXq', rating: 5, comment: 'Llegó rápido y fue muy amable' },
  ChatMessageInput: { texto: '¿Cuánto falta para que llegue?', clientId: 'c-1764000000000' },
  ChatPageInput: { limit: '50' },
  ChatReadInput: { hasta: 42 },
  TrackingPageCodeForm: { expediente: 'SV-7K3M9Q', telefono: '300 765 4321' },
  TrackingPageVerifyForm: { expediente: 'SV-7K3M9Q', code: '482913' },
  TrackingPageMessageForm: { texto: 'Estoy junto al carro gris' },
  TrackingPageSurveyForm: { rating: '5', comment: 'Muy amable' },
  ConsoleResendForm: { confirmado: 'si', entiendo: 'si' },
  DeliveriesQuery: { estado: 'failed', page: '1' },
  CentralServicesQuery: { estado: 'ASIGNADA', page: '1' },
  WebhookTestInput: { tipo: 'estado' },
};

type Schema = { [key: string]: unknown };

/**
 * A copy of a request schema with `descriptions` laid on its fields that have
 * none (a field's own description wins), through nested objects, array items
 * and anyOf/oneOf branches.
 */
export function describedSchema(schema: Schema, descriptions: Record<string, string>, prefix = ''): Schema {
  const out: Schema = { ...schema };
  if (schema.properties && typeof schema.properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([k, v]) => {
        const path = prefix ? `${prefix}.${k}` : k;
        const inner = describedSchema(v, descriptions, path);
        return [k, inner.description || !descriptions[path] ? inner : { description: descriptions[path], ...inner }];
      }),
    );
  }
  if (schema.items && typeof schema.items === 'object') out.items = describedSchema(schema.items as Schema, descriptions, `${prefix}[]`);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[k])) out[k] = (schema[k] as Schema[]).map((s) => describedSchema(s, descriptions, prefix));
  }
  return out;
}
