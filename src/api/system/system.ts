/** Health and the API documents (served by src/http/routes/health.ts and docs.ts: request facts and files). */
import { RouteNotFound, str } from '../document/components.js';
import { html } from '../document/responses.js';
import { API, operation } from '../operation.js';

export const health = operation({
  method: 'get',
  path: '/health',
  operationId: 'health',
  summary: 'Liveness and dependencies: 200 when PostgreSQL and Redis answer, 503 otherwise',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: Object.fromEntries(
    [200, 503].map((status) => [
      status,
      {
        description: status === 200 ? 'Healthy' : 'A dependency is down',
        schema: {
          type: 'object',
          required: ['status', 'postgres', 'redis', 'timestamp'],
          properties: {
            status: { enum: ['ok', 'unavailable'] },
            postgres: { enum: ['ok', 'down'] },
            redis: { enum: ['ok', 'down'] },
            timestamp: str(64, { format: 'date-time' }),
          },
        },
      },
    ]),
  ),
});

const probeState = { enum: ['ok', 'down'] } as const;

export const healthLive = operation({
  method: 'get',
  path: '/health/live',
  operationId: 'healthLive',
  summary: 'Liveness (D21): 200 while the process runs, whatever its dependencies do',
  description: 'For an orchestrator\'s liveness probe: restart the process only when this fails.',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: {
    200: {
      description: 'The process runs',
      schema: {
        type: 'object',
        required: ['status', 'version', 'uptimeS'],
        properties: { status: { const: 'ok' }, version: str(64), uptimeS: { type: 'number', minimum: 0 } },
      },
      examples: { ok: { status: 'ok', version: '0.1.0', uptimeS: 12.5 } },
    },
  },
});

export const healthReady = operation({
  method: 'get',
  path: '/health/ready',
  operationId: 'healthReady',
  summary: 'Readiness (D21): 200 only while PostgreSQL and Redis answer and the migrations are applied; 503 naming what is missing',
  description: 'For an orchestrator\'s readiness probe and a load balancer: send traffic only while this answers 200.',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: Object.fromEntries(
    [200, 503].map((status) => [
      status,
      {
        description: status === 200 ? 'Ready' : 'Not ready: `missing` names what is',
        schema: {
          type: 'object',
          required: ['status', 'version', 'missing', 'postgres', 'redis', 'migrations'],
          properties: {
            status: { enum: ['ok', 'unavailable'] },
            version: str(64),
            missing: { type: 'array', items: { enum: ['postgres', 'redis', 'migrations'] } },
            postgres: probeState,
            redis: probeState,
            migrations: { enum: ['ok', 'pending', 'unknown'] },
          },
        },
        examples:
          status === 200
            ? { ready: { status: 'ok', version: '0.1.0', missing: [], postgres: 'ok', redis: 'ok', migrations: 'ok' } }
            : { redisDown: { status: 'unavailable', version: '0.1.0', missing: ['redis'], postgres: 'ok', redis: 'down', migrations: 'ok' } },
      },
    ]),
  ),
});

export const openApiDocument = operation({
  method: 'get',
  path: `${API}/openapi.json`,
  operationId: 'openApiDocument',
  summary: 'This document (OpenAPI 3.1)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object', required: ['openapi', 'paths'] } } },
});

export const asyncApiDocument = operation({
  method: 'get',
  path: `${API}/asyncapi.json`,
  operationId: 'asyncApiDocument',
  summary: 'The WebSocket events (AsyncAPI 3.0), as docs/realtime.md describes them',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  responses: { 200: { description: 'The AsyncAPI document', schema: { type: 'object', required: ['asyncapi', 'channels'] } } },
});

export const docsPage = operation({
  method: 'get',
  path: `${API}/docs`,
  operationId: 'docsPage',
  summary: 'This document rendered (Swagger UI, served locally)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'html',
  responses: { 200: html('The page') },
});

export const docsAsset = operation({
  method: 'get',
  path: `${API}/docs/{file}`,
  operationId: 'docsAsset',
  summary: 'The Swagger UI files the page loads (a fixed list)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  pathParams: { file: { description: 'one of the page’s files', maxLength: 64 } },
  responses: {
    200: { description: 'The file', contentType: 'application/javascript' },
    404: { description: 'Not one of the page’s files: the unknown-route body (4.9)', schema: RouteNotFound },
  },
});

/** The pages' client modules (D23): the map drawing shared by the console and the customer page, and the console's map. */
export const pageAsset = operation({
  method: 'get',
  path: '/assets/{file}',
  operationId: 'pageAsset',
  summary: 'The pages’ ES modules: `map.js` (projection, scale bar, markers; shared by the console and the customer page) and `console-map.js`; nothing fetched from outside (D23)',
  tag: 'Sistema',
  auth: 'none',
  envelope: 'system',
  pathParams: { file: { description: 'map.js or console-map.js', maxLength: 64 } },
  responses: {
    200: { description: 'The module', contentType: 'application/javascript' },
    404: { description: 'Not one of the modules: the unknown-route body (4.9)', schema: RouteNotFound },
  },
});
