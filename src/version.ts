/** The service's version, as package.json states it (GET /health/live and /health/ready, D21). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageVersion(): string {
  // The nearest package.json above this file: the checkout's, from src/ and from dist/src/ alike.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return String((JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version ?? '0.0.0');
    const up = dirname(dir);
    if (up === dir) return '0.0.0';
    dir = up;
  }
}

export const VERSION = packageVersion();
