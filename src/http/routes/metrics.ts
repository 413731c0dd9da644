/**
 * GET /metrics (D19): Prometheus text for operators: an operator's Bearer JWT
 * or session cookie, or the scraper's METRICS_TOKEN (compared in constant
 * time). Anything else: 401 in the system envelope.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { operatorOfToken } from '../../auth/jwt.js';
import type { Runtime } from '../../domain/ports.js';
import { scrape } from '../../metrics/metrics.js';
import { OPERATOR_COOKIE } from '../auth/index.js';
import { systemError } from '../../envelopes.js';
import { metricsEndpoint } from '../../api/deliveries/metrics.js';
import { Answer } from '../../api/operation.js';
import { route, type Route } from '../mount.js';

export const METRICS_UNAUTHORIZED = 'Las métricas son para operadores: inicie sesión o use METRICS_TOKEN.';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsRoutes(rt: Runtime): Route[] {
  return [
    route(metricsEndpoint, async (ctx) => {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
      const scraper = !!bearer && !!rt.config.metricsToken && timingSafeEqual(digest(bearer), digest(rt.config.metricsToken));
      if (!scraper) {
        const token = bearer ?? ctx.cookies.get(OPERATOR_COOKIE);
        const op = token ? await operatorOfToken(rt.orm.em.fork(), token, rt.config.jwtSecret) : null;
        if (!op) throw systemError(401, METRICS_UNAUTHORIZED);
      }
      const out = await scrape(rt.redis, rt.config.queuePrefix, rt.queues);
      ctx.type = out.contentType;
      return new Answer(200, out.text, { 'Cache-Control': 'no-store' });
    }),
  ];
}
