/**
 * The `Servicio` schema (D20): what the crew needs, as
 * src/domain/services/servicio.ts builds it; one component for the central's
 * ASIGNADA novelty, the direct-assignment push, `service.assigned` and the
 * provider's service lists.
 */
import { str } from '../document/components.js';
import { named } from '../operation.js';

const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });
const S = str(255);
const num = { type: 'number' } as const;

/** D20: what the crew needs (src/domain/services/servicio.ts); never the customer's phone. */
export const ServicioSchema = named('Servicio', {
  type: 'object',
  description: 'What the crew needs to do the job (D20). Never the customer’s phone: the chat is the channel (D14).',
  required: [
    'uuid',
    'codigoServicio',
    'tipoServicio',
    'nombreTipoServicio',
    'descripcionServicio',
    'direccionOrigen',
    'latitudOrigen',
    'longitudOrigen',
    'puntoReferenciaOrigen',
    'direccionDestino',
    'latitudDestino',
    'longitudDestino',
    'puntoReferenciaDestino',
    'ciudad',
    'departamento',
    'fechaCita',
    'horaCita',
    'vehiculo',
    'observaciones',
    'guardian',
    'paradas',
    'tecnico',
  ],
  properties: {
    uuid: str(36, { format: 'uuid' }),
    codigoServicio: nullable(str(32)),
    tipoServicio: { type: 'integer' },
    nombreTipoServicio: S,
    descripcionServicio: str(2000),
    direccionOrigen: nullable(str(500)),
    latitudOrigen: num,
    longitudOrigen: num,
    puntoReferenciaOrigen: nullable(str(500)),
    direccionDestino: nullable(str(500)),
    latitudDestino: nullable(num),
    longitudDestino: nullable(num),
    puntoReferenciaDestino: nullable(str(500)),
    ciudad: nullable(S),
    departamento: nullable(S),
    fechaCita: { ...str(32), description: 'empty: immediate (spec 2.1)' },
    horaCita: { ...str(32), description: 'empty: immediate (spec 2.1)' },
    vehiculo: nullable({ type: 'object', description: 'the vehicle as the offer gave it (spec 2.1)' }),
    observaciones: nullable(str(5200)),
    guardian: { enum: ['SI', 'NO'] },
    paradas: {
      type: 'array',
      description: 'every stop added (D6), in order',
      items: {
        type: 'object',
        required: ['direccion', 'latitud', 'longitud', 'puntoReferencia', 'ciudad', 'departamento'],
        properties: {
          direccion: nullable(str(500)),
          latitud: num,
          longitud: num,
          puntoReferencia: nullable(str(500)),
          ciudad: nullable(S),
          departamento: nullable(S),
        },
      },
    },
    tecnico: nullable({ type: 'object', required: ['dniTecnico', 'nombre'], properties: { dniTecnico: S, nombre: S } }),
  },
} as const);

