/**
 * Issue 30, items 1, 2 and 4 (D21): Redis and PostgreSQL go away under a steady load of answered offers, the service
 * on one Redis (a throwaway redis-server behind a TCP proxy). The scenario and its assertions:
 * test/helpers/outageScenario.ts; the same on a Redis Cluster: outageCluster.test.ts.
 */
import { outageScenario, singleRedis } from '../helpers/outageScenario.js';

outageScenario(singleRedis(), '');
