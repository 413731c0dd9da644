/**
 * A TCP proxy for the fault tests (issue 30, item 4): the service's processes reach Redis or PostgreSQL through it,
 * and the test cuts, stalls and restores their connections.
 * - `cut()`: every open connection is reset and new ones are accepted and reset at once (the peer is gone);
 * - `stall()`: connections stay open but nothing is carried either way, and new ones are held unconnected (the
 *   peer stopped answering: a network partition, a frozen server);
 * - `restore()`: carries again; what a stalled connection held is delivered, held connections are connected.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'open' | 'cut' | 'stall';

export interface TcpProxy {
  port: number;
  mode: ProxyMode;
  cut(): void;
  stall(): void;
  restore(): void;
  /** connections accepted so far */
  accepted: number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'open';
  let accepted = 0;

  const drop = (p: Pair) => {
    pairs.delete(p);
    p.client.destroy();
    p.upstream?.destroy();
  };

  const link = (p: Pair) => {
    const upstream = connect({ host, port: target.port });
    p.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.on('error', () => drop(p));
    upstream.on('close', () => drop(p));
    upstream.on('data', (d: Buffer) => p.client.write(d));
    p.client.on('data', (d: Buffer) => upstream.write(d));
    if (mode === 'stall') {
      upstream.pause();
      p.client.pause();
    }
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.setNoDelay(true);
    const p: Pair = { client };
    client.on('error', () => drop(p));
    client.on('close', () => drop(p));
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    pairs.add(p);
    if (mode === 'stall') client.pause();
    else link(p);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as AddressInfo).port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      mode = 'cut';
      for (const p of [...pairs]) {
        p.client.resetAndDestroy();
        p.upstream?.destroy();
        pairs.delete(p);
      }
    },
    stall() {
      mode = 'stall';
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    restore() {
      mode = 'open';
      for (const p of pairs) {
        if (!p.upstream) link(p);
        p.client.resume();
        p.upstream?.resume();
      }
    },
    async close() {
      for (const p of [...pairs]) drop(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
