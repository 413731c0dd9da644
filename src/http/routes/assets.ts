/**
 * GET /assets/map.js (D23): the map drawing shared by the console and the
 * customer page, served as the compiled ES module that sits beside the server
 * code (src/http/views/assets/map.ts), so both ends run the same code.
 */
import { readFile } from 'node:fs/promises';
import { mapAsset } from '../../api/system/system.js';
import type { AppContext } from '../context.js';
import { route, type Route } from '../mount.js';

const MAP_FILE = new URL('../views/assets/map.js', import.meta.url);
let map: Promise<string> | null = null;

/** The compiled module without its source-map comment (the map file is not served). */
const mapModule = () => (map ??= readFile(MAP_FILE, 'utf8').then((s) => s.split('\n').filter((line) => !line.startsWith('//# sourceMappingURL=')).join('\n')));

export function assetRoutes(): Route[] {
  return [
    route(mapAsset, async (ctx: AppContext) => {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return mapModule();
    }),
  ];
}
