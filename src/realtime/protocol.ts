/**
 * The socket protocol (decisions D10): every frame is JSON `{event, data}`
 * (plus an optional `ref` the server echoes in its reply). Incoming frames are
 * validated with ajv against the OpenAPI document's Socket* components (the
 * fields of the same operation's HTTP body): first the envelope, then the data
 * of that event; a bad frame is answered with an `error` event and the
 * connection stays.
 */
import type { ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { SocketFrame, SocketOfferRespond, SocketPing, SocketPosition, SocketProgress } from '../api/document/socket.js';
import { compile } from '../api/validation.js';
import { findUnstorableText, unstorableTextMessage } from '../text.js';
import type { ClientKind } from './auth.js';

/** A schema of the OpenAPI document's components (the same object the document lists), compiled once. */
const fromDocument = (n: { name: string; schema: object }) => compile(n.schema);

/** Incoming events, the data each carries, and who may send it. */
const INCOMING = {
  ping: { schema: SocketPing, senders: ['generator', 'technician', 'operator', 'customer'] },
  'offer.respond': { schema: SocketOfferRespond, senders: ['technician'] },
  position: { schema: SocketPosition, senders: ['technician'] },
  progress: { schema: SocketProgress, senders: ['technician'] },
} as const satisfies Record<string, { schema: { name: string }; senders: readonly ClientKind[] }>;

export type IncomingEvent = keyof typeof INCOMING;
export type RespondData = FromSchema<typeof SocketOfferRespond.schema>;
export type PositionData = FromSchema<typeof SocketPosition.schema>;
export type ProgressData = FromSchema<typeof SocketProgress.schema>;

export type Incoming = { ref?: string } & (
  | { event: 'ping'; data: Record<string, never> }
  | { event: 'offer.respond'; data: RespondData }
  | { event: 'position'; data: PositionData }
  | { event: 'progress'; data: ProgressData }
);

export const PROTOCOL_MESSAGES = {
  binary: 'SOLO SE ACEPTAN MENSAJES DE TEXTO JSON',
  notJson: 'EL MENSAJE NO ES UN JSON VÁLIDO',
  envelope: 'EL MENSAJE DEBE TENER LA FORMA {event, data}',
  unknownEvent: 'EVENTO DESCONOCIDO',
  forbiddenEvent: 'EVENTO NO PERMITIDO PARA ESTE CLIENTE',
  invalidData: 'DATOS INVÁLIDOS PARA EL EVENTO',
  busy: 'DEMASIADAS SOLICITUDES EN CURSO EN ESTA CONEXIÓN; ESPERE LAS RESPUESTAS',
  unavailable: 'FUNCIÓN AÚN NO DISPONIBLE EN ESTE SERVIDOR',
  closing: 'EL SERVIDOR SE ESTÁ CERRANDO; VUELVA A CONECTARSE',
} as const;

export interface ProtocolError {
  message: string;
  details: unknown;
  ref?: string;
}

function details(errors: ErrorObject[] | null | undefined): Array<{ path: string; message: string }> {
  return (errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid' }));
}

/** Parses and validates one incoming frame for a client of `kind`. */
export function parseIncoming(raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean, kind: ClientKind): Incoming | ProtocolError {
  if (isBinary) return { message: PROTOCOL_MESSAGES.binary, details: null };
  const text = Array.isArray(raw) ? Buffer.concat(raw).toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { message: PROTOCOL_MESSAGES.notJson, details: null };
  }
  // D19: no NUL or lone surrogate anywhere in a message (it would reach PostgreSQL through an action).
  const unstorable = findUnstorableText(value);
  if (unstorable !== null) return { message: unstorableTextMessage(unstorable), details: { path: unstorable } };
  const validEnvelope = fromDocument(SocketFrame);
  if (!validEnvelope(value)) return { message: PROTOCOL_MESSAGES.envelope, details: details(validEnvelope.errors) };
  const msg = value as FromSchema<typeof SocketFrame.schema>;
  const ref = msg.ref;
  if (!Object.hasOwn(INCOMING, msg.event)) {
    return { message: PROTOCOL_MESSAGES.unknownEvent, details: { event: msg.event, known: Object.keys(INCOMING) }, ref };
  }
  const spec = INCOMING[msg.event as IncomingEvent];
  if (!(spec.senders as readonly ClientKind[]).includes(kind)) {
    return { message: PROTOCOL_MESSAGES.forbiddenEvent, details: { event: msg.event }, ref };
  }
  const data = msg.data ?? {};
  const validData = fromDocument(spec.schema);
  if (!validData(data)) {
    return { message: PROTOCOL_MESSAGES.invalidData, details: { event: msg.event, errors: details(validData.errors) }, ref };
  }
  return { event: msg.event, data, ref } as Incoming;
}

export function isProtocolError(v: Incoming | ProtocolError): v is ProtocolError {
  return 'message' in v;
}

/** One outgoing frame. */
export function frame(event: string, data: unknown, ref?: string): string {
  return JSON.stringify(ref === undefined ? { event, data } : { event, data, ref });
}
