/**
 * A Redis Cluster for the tests (D22): the one `.ci/run` started
 * (TEST_REDIS_CLUSTER_NODES), or else three masters this run starts itself
 * from `redis-server` on free ports under a directory of its own in /tmp,
 * joined with `redis-cli --cluster create`, and stopped when the run ends. So
 * the cluster suites never skip: `npm test` runs them on any machine with
 * Debian's redis-server (the same package as the single Redis).
 *
 * For other suites that want to run against the cluster too (the fault test):
 * `testRedisCluster()` gives the seed nodes and the `env` a started app or a
 * spawned process takes (`REDIS_CLUSTER_NODES`, with a QUEUE_PREFIX of the
 * suite's own); `testRedisCluster({ own: true })` a cluster of the suite's
 * own whose masters it may break (`restartEmpty`: a master restarted without
 * its data, as Redis restarted empty). A TCP proxy in front of a master sees
 * a cluster client's traffic only with REDIS_CLUSTER_NAT_MAP: the masters
 * announce 127.0.0.1 and their own ports, and the client follows them unless
 * the map sends each to its proxy (`127.0.0.1:<master>=127.0.0.1:<proxy>,…`;
 * test/cluster/cluster.test.ts, "behind a proxy per master", does so).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { waitFor } from './wait.js';

export interface ClusterNode {
  host: string;
  port: number;
}

export interface TestRedisCluster {
  nodes: ClusterNode[];
  /**
   * Kills one master (SIGKILL) and starts it again with no data, keeping its cluster configuration (its slots), as a
   * master that restarts without persistence; resolves once the cluster answers `cluster_state:ok` again. Only on a
   * cluster this run started (`testRedisCluster({ own: true })` forces one).
   */
  restartEmpty(node: ClusterNode): Promise<void>;
  /** `host:port,host:port,…`: REDIS_CLUSTER_NODES */
  nodesText: string;
  /** what an app (startApp's env) or a spawned process needs to use the cluster */
  env: { REDIS_CLUSTER_NODES: string };
  /** whether this run started it (and stops it at exit) */
  own: boolean;
}

/** Free TCP ports on 127.0.0.1, all held at once so none is given twice. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => resolve(s));
    })),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

async function answers(node: ClusterNode): Promise<boolean> {
  const r = new Redis({ ...node, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

async function clusterOk(node: ClusterNode): Promise<boolean> {
  const r = new Redis({ ...node, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return /cluster_state:ok/.test(await r.cluster('INFO'));
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

const children: ChildProcess[] = [];
/** how each master of this run's own cluster was started, by port */
const started = new Map<number, { args: string[]; child: ChildProcess }>();

function startServer(port: number, args: string[]): ChildProcess {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  children.push(child);
  started.set(port, { args, child });
  return child;
}

async function restartEmpty(node: ClusterNode): Promise<void> {
  const own = started.get(node.port);
  if (!own) throw new Error(`${node.host}:${node.port} was not started by this run: use testRedisCluster({ own: true })`);
  if (own.child.exitCode === null && own.child.signalCode === null) {
    const exited = new Promise((resolve) => own.child.once('exit', resolve));
    own.child.kill('SIGKILL');
    await exited;
  }
  startServer(node.port, own.args);
  await waitFor(() => answers(node), 10000, `redis-server on ${node.port} again`);
  await waitFor(() => clusterOk(node), 15000, `cluster_state:ok on ${node.port} again`);
}
const dirs: string[] = [];
process.once('exit', () => {
  // synchronous: the run is ending; only the processes this run started
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startOwn(): Promise<ClusterNode[]> {
  const ports = await freePorts(6);
  const dir = mkdtempSync(join(tmpdir(), 'broker-redis-cluster-'));
  dirs.push(dir);
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < 3; i++) {
    const port = ports[i];
    startServer(port, [
      '--port', String(port), '--cluster-port', String(ports[i + 3]), '--bind', '127.0.0.1',
      '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000',
      '--save', '', '--appendonly', 'no', '--dir', dir, '--hz', '100', '--daemonize', 'no', '--logfile', join(dir, `${port}.log`),
    ]);
    nodes.push({ host: '127.0.0.1', port });
  }
  for (const n of nodes) await waitFor(() => answers(n), 10000, `redis-server on ${n.port}`);
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], {
    encoding: 'utf8',
    timeout: 30000,
  });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  for (const n of nodes) await waitFor(() => clusterOk(n), 15000, `cluster_state:ok on ${n.port}`);
  // every master knows every slot's owner (the create's config has reached them all)
  await waitFor(async () => {
    const c = new Cluster(nodes, { lazyConnect: true });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return (c.nodes('master').length === 3);
    } catch {
      return false;
    } finally {
      c.disconnect();
    }
  }, 15000, 'the cluster client sees three masters');
  return nodes;
}

let shared: Promise<TestRedisCluster> | undefined;
let own: Promise<TestRedisCluster> | undefined;

/**
 * The run's Redis Cluster (started once, on the first call, unless TEST_REDIS_CLUSTER_NODES names one). `own: true`:
 * one this run starts whatever the variable says, for a suite that breaks its nodes (restartEmpty).
 */
export function testRedisCluster(opts: { own?: boolean } = {}): Promise<TestRedisCluster> {
  if (opts.own) return (own ??= make(false));
  return (shared ??= make(true));
}

function make(mayUseGiven: boolean): Promise<TestRedisCluster> {
  return (async () => {
    const given = mayUseGiven ? process.env.TEST_REDIS_CLUSTER_NODES?.trim() : undefined;
    const nodes = given
      ? given.split(',').map((n) => {
          const at = n.lastIndexOf(':');
          return { host: n.slice(0, at).trim(), port: Number(n.slice(at + 1)) };
        })
      : await startOwn();
    const nodesText = nodes.map((n) => `${n.host}:${n.port}`).join(',');
    return { nodes, nodesText, env: { REDIS_CLUSTER_NODES: nodesText }, own: !given, restartEmpty };
  })();
}
