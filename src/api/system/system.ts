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
