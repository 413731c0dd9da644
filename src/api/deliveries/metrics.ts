/** GET /metrics (D19): Prometheus text for operators; its handler reads the request's cookie (src/http/routes/metrics.ts). */
import type { JSONSchema } from 'json-schema-to-ts';
import { operation } from '../operation.js';

export const metricsEndpoint = operation({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics of every API and worker process (D19), for operators',
  description:
    'An operator’s Bearer JWT or session cookie, or `Authorization: Bearer <METRICS_TOKEN>` for a scraper. HTTP durations by route and status, selection lateness, webhook deliveries by kind and outcome, BullMQ queue depths, sockets, process figures.',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: {
    200: { description: 'Prometheus text format', contentType: 'text/plain' },
    401: {
      description: 'Neither an operator’s session nor the metrics token',
      schema: { $ref: '#/components/schemas/SystemError' } as JSONSchema,
    },
  },
});

