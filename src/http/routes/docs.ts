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
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * Our own start script (a file, not inline, so a strict Content-Security-Policy allows it). DS-3: Swagger UI's
 * BaseLayout, without the standalone top bar (a box to load another document, unlabelled: axe "label"); no
 * deepLinking (it puts a link inside each operation's expand button: axe "nested-interactive").
 */
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: './openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: false,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/**
 * Our few additions to Swagger UI's stylesheet (issue 31 item 5, DS-2), loaded after it; each fixes what axe-core
 * finds below WCAG's 4.5:1 with the same hue, darker: the method badges (white on light green, blue, orange: 2:1 to
 * 2.3:1), the version badges, the document's link, the Authorize, Execute and Cancel buttons, the
 * schemas' "Expand all", where a parameter goes, the response's Download. The curl command wraps and grows instead
 * of scrolling (a scrolling region a keyboard cannot reach: axe "scrollable-region-focusable"). The responses' "Links"
 * column is hidden (the document declares no links; on a phone it pushed the table past the screen). The server picker
 * is hidden: the document has one server (`/`), nothing to pick, and Swagger UI's select has no name (axe
 * "select-name"). Dark mode (Swagger UI’s own `html.dark-mode` rules, more specific) is left as it is.
 */
const DOCS_CSS = `.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7f4b; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f6fb5; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a35200; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c0262d; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f7a6a; }
.swagger-ui .info .title small { background: #5b6270; }
.swagger-ui .info .title small.version-stamp { background-color: #4d7c0f; }
.swagger-ui .info a { color: #1f5fa8; }
.swagger-ui .btn.authorize { border-color: #1a7f4b; color: #1a7f4b; }
.swagger-ui .btn.authorize svg { fill: #1a7f4b; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #5b6270; }
.swagger-ui .parameter__in, .swagger-ui .parameter__extension { color: #5b6270; }
.swagger-ui .btn.execute { background-color: #1f5fa8; border-color: #1f5fa8; }
.swagger-ui .btn.cancel { border-color: #c0262d; color: #c0262d; }
.swagger-ui .download-contents { background: #5b6270; }
.swagger-ui .curl, .swagger-ui .curl code { white-space: pre-wrap !important; overflow-wrap: anywhere; }
.swagger-ui .responses-inner .curl { max-height: none; overflow: visible !important; }
.swagger-ui .response-col_links { display: none; }
.swagger-ui .servers-title, .swagger-ui .servers { display: none; }
`;

// lang="en": the document (and Swagger UI around it) is written in English (DS-1).
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Service Offer Brokering API v3</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="stylesheet" href="docs/docs.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
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
      if (file === 'docs.css') {
        ctx.type = 'text/css; charset=utf-8';
        return DOCS_CSS;
      }
      if (!Object.hasOwn(ASSETS, file)) return undefined; // unknown route (404 body of 4.9)
      ctx.type = ASSETS[file];
      ctx.set('Cache-Control', 'public, max-age=86400');
      return asset(file);
    }),
  ];
}
