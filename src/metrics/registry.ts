/** The process's one prom-client registry, with prom-client's default process metrics (D19). */
import { Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });
