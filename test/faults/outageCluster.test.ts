/**
 * Issue 30, item 5 (D21, D22): the fault scenario of outage.test.ts with the service on a three-master Redis Cluster
 * of the run's own, each master behind a TCP proxy (REDIS_CLUSTER_NODES and REDIS_CLUSTER_NAT_MAP): every master's
 * proxy cut, then stalled; PostgreSQL cut; every master killed and restarted empty. Same assertions and figures.
 */
import { clusterRedis, outageScenario } from '../helpers/outageScenario.js';

outageScenario(clusterRedis(), 'cl');
