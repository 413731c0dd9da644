/**
 * GET /api/v3/openapi.json, /api/v3/asyncapi.json and /api/v3/docs (D19):
 * the documents, and Swagger UI (swagger-ui-dist) served from node_modules
 * through a fixed list of files, so the page fetches nothing from outside.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Runtime } from '../../domain/ports.js';
import type { AppContext } from '../context.js';
import { asyncApiDocument } from '../../api/document/asyncapi.js';
import { openApiDocument as document } from '../../api/document/openapi.js';
import { asyncApiDocument as asyncOp, docsAsset, docsPage, openApiDocument as openOp } from '../../api/system/system.js';
import { route, type Route } from '../mount.js';

const UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files the page loads, and their types; anything else under /docs/ is an unknown route. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Our own start script (a file, not inline, so a strict Content-Security-Policy allows it). */
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: './openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

const PAGE = `<!doctype html>
<html lang="es">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Service Offer Brokering API v3</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-ui-standalone-preset.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

const cache = new Map<string, Buffer>();

async function asset(file: string): Promise<Buffer> {
  let b = cache.get(file);
  if (!b) {
    b = await readFile(path.join(UI_DIR, file));
    cache.set(file, b);
  }
  return b;
}

export function docsRoutes(_rt: Runtime): Route[] {
  return [
    route(openOp, () => document()),
    route(asyncOp, () => asyncApiDocument()),
    route(docsPage, (ctx: AppContext) => {
      ctx.type = 'html';
      return PAGE;
    }),
    route(docsAsset, async (ctx: AppContext) => {
      const file = ctx.params.file;
      if (file === 'init.js') {
        ctx.type = 'application/javascript; charset=utf-8';
        return INIT_JS;
      }
      if (!Object.hasOwn(ASSETS, file)) return undefined; // unknown route (404 body of 4.9)
      ctx.type = ASSETS[file];
      ctx.set('Cache-Control', 'public, max-age=86400');
      return asset(file);
    }),
  ];
}
