/**
 * GET /assets/{file} (D23): the pages' client modules, served as the compiled
 * ES modules that sit beside the server code (src/http/views/assets/), so the
 * server's first paint and the browser's live updates run the same code:
 * `map.js` (the drawing shared by the console and the customer page) and
 * `console-map.js` (the console's map and table, importing `./map.js`).
 */
import { readFile } from 'node:fs/promises';
import { pageAsset } from '../../api/system/system.js';
import type { AppContext } from '../context.js';
import { route, type Route } from '../mount.js';

/** URL name → compiled file beside this one's folder. */
const MODULES: Readonly<Record<string, string>> = { 'map.js': 'map.js', 'console-map.js': 'consoleMap.js' };
const cache = new Map<string, Promise<string>>();

/** The compiled module without its source-map comment (map files are not served). */
function load(file: string): Promise<string> {
  let text = cache.get(file);
  if (!text) {
    text = readFile(new URL(`../views/assets/${file}`, import.meta.url), 'utf8').then((s) =>
      s
        .split('\n')
        .filter((line) => !line.startsWith('//# sourceMappingURL='))
        .join('\n'),
    );
    cache.set(file, text);
  }
  return text;
}

export function assetRoutes(): Route[] {
  return [
    route(pageAsset, async (ctx: AppContext) => {
      const file = String(ctx.params.file ?? '');
      if (!Object.hasOwn(MODULES, file)) return undefined; // unknown route (404 body of 4.9)
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return load(MODULES[file]);
    }),
  ];
}
