/**
 * Issue 30 items 1 and 5 (D21, D22): a cluster client whose masters are all away backs off before reconnecting, as one
 * Redis's client does, instead of trying about twenty times a second under traffic (ioredis's default), and is back
 * once they answer.
 */
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { clusterRetryDelay, createRedis, duplicateRedis, failFastOptions } from '../../src/queues/redis.js';
import { testRedisCluster } from '../helpers/redisCluster.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';
import { waitFor } from '../helpers/wait.js';

describe('a Redis Cluster client with every master away (issue 30, D21, D22)', function () {
  this.timeout(30000);
  const proxies: TcpProxy[] = [];
  let client: Cluster;

  before(async () => {
    const cluster = await testRedisCluster();
    for (const node of cluster.nodes) proxies.push(await startTcpProxy(node));
    client = createRedis(
      {
        redisUrl: 'redis://127.0.0.1',
        redisClusterNodes: proxies.map((p) => ({ host: '127.0.0.1', port: p.port })),
        redisClusterNatMap: Object.fromEntries(cluster.nodes.map((n, i) => [`${n.host}:${n.port}`, { host: '127.0.0.1', port: proxies[i].port }])),
      },
      failFastOptions(2000),
    ) as Cluster;
    client.on('error', () => undefined);
    await waitFor(() => client.status === 'ready', 10000, 'the cluster client');
  });
  after(async () => {
    client?.disconnect();
    for (const p of proxies) await p.close();
  });

  it('waits longer between tries, up to 2 s (ioredis’s own waits 100 ms + 2 ms a try), its copies too', () => {
    const delays = [1, 2, 3, 4, 5, 6, 10, 100].map((n) => client.options.clusterRetryStrategy!.call(client, n, new Error('x')));
    expect(delays).to.deep.equal([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
    const copy = duplicateRedis(client, { maxRetriesPerRequest: null }) as Cluster;
    try {
      expect(copy.options.clusterRetryStrategy).to.equal(clusterRetryDelay);
    } finally {
      copy.disconnect();
    }
  });

  it('cut away, each try costs at most a connection per seed node, and it answers again once the masters are back', async () => {
    let tries = 0;
    client.on('reconnecting', () => tries++);
    const accepted = () => proxies.reduce((n, p) => n + p.accepted, 0);
    for (const p of proxies) p.cut();
    // traffic, as a process's: each command refused while the cluster is away
    const traffic = setInterval(() => void client.set('cluster-reconnect-probe', '1').catch(() => undefined), 20);
    try {
      const before = accepted();
      // six tries: 100 + 200 + 400 + 800 + 1600 ms of waiting
      await waitFor(() => tries >= 6, 15000, 'six reconnection tries');
      const connections = accepted() - before;
      // each try connects to the seed nodes until one answers (at most 3 here), and nothing else connects meanwhile
      expect(connections, 'connections made while cut').to.be.at.most(6 * proxies.length + proxies.length);
    } finally {
      clearInterval(traffic);
      for (const p of proxies) p.restore();
    }
    await waitFor(() => client.status === 'ready', 10000, 'the cluster client ready again');
    expect(await client.set('cluster-reconnect-probe', '2')).to.equal('OK');
    await client.del('cluster-reconnect-probe');
  });
});
