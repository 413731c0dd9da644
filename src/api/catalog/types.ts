/** GET /types (spec 4.5): a bare array of service types; a 200 also checks the credentials. */
import { listServiceTypes as list } from '../../domain/catalog/serviceTypes.js';
import { str } from '../document/components.js';
import { API, operation } from '../operation.js';

export const listServiceTypes = operation({
  method: 'get',
  path: `${API}/types`,
  operationId: 'listServiceTypes',
  summary: 'Service types (spec 4.5); a 200 also checks the credentials',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  responses: {
    200: {
      description: 'A bare array of service types (shape 2.4)',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'type', 'required_origin', 'required_destination'],
          properties: { id: { type: 'integer' }, type: str(255), required_origin: { type: 'boolean' }, required_destination: { type: 'boolean' } },
        },
      },
      examples: { types: [{ id: 1, type: 'GRUA', required_origin: true, required_destination: true }] },
    },
  },
  handle: (rt) => list(rt.orm.em.fork()),
});
