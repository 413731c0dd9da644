/**
 * Issue 30 items 1 and 5 (D21, D22, FLT-3): a cluster client whose masters are all away backs off before reconnecting,
 * as one Redis's client does, instead of trying about twenty times a second under traffic (ioredis's default); its
 * subscriber connection too, instead of picking another node the moment one ends (ioredis's: thousands of connections
 * a second, found by outageCluster.test.ts); both are back once the masters answer, the subscription with them.
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
  let direct: Cluster;
  const messages: string[] = [];

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
    // a subscriber, as the real-time bus's (its subscriber connection is the client's own, beside the commands')
    client.on('message', (_channel: string, message: string) => messages.push(message));
    await client.subscribe('cluster-reconnect-channel');
    direct = new Cluster(cluster.nodes);
  });
  after(async () => {
    client?.disconnect();
    direct?.disconnect();
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

  it('cut away, it and its subscriber connect a few times, not thousands, and both work again once the masters are back', async () => {
    let tries = 0;
    client.on('reconnecting', () => tries++);
    const accepted = () => proxies.reduce((n, p) => n + p.accepted, 0);
    for (const p of proxies) p.cut();
    // traffic, as a process's: each command refused while the cluster is away
    const traffic = setInterval(() => void client.set('cluster-reconnect-probe', '1').catch(() => undefined), 20);
    try {
      const before = accepted();
      // four tries of the client's: 100 + 200 + 400 ms of waiting, over which its subscriber re-picks as often
      await waitFor(() => tries >= 4, 15000, 'four reconnection tries');
      const connections = accepted() - before;
      // each try connects to the seed nodes until one answers (at most 3 here), each pick of the subscriber once
      expect(connections, 'connections made while cut').to.be.at.most(2 * 4 * proxies.length);
    } finally {
      clearInterval(traffic);
      for (const p of proxies) p.restore();
    }
    await waitFor(() => client.status === 'ready', 10000, 'the cluster client ready again');
    expect(await client.set('cluster-reconnect-probe', '2')).to.equal('OK');
    await client.del('cluster-reconnect-probe');
    // the subscription is back too (published until it arrives: the subscriber reconnects on its own schedule)
    await waitFor(async () => {
      await direct.publish('cluster-reconnect-channel', 'back');
      return messages.includes('back');
    }, 10000, 'a message through the subscription after the cut');
  });
});
