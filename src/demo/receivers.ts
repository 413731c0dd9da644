/**
 * The generators' webhook receivers, on loopback: each verifies every request
 * with the `standardwebhooks` package and its generator's secret (D17), as
 * docs/operations.md tells an integrator to, answers 200, then hands the
 * verified notification on. A request that does not verify is answered 400.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Notification {
  /** the receiver's path: /webhooks/aceptacion (6.1) or /webhooks/estado */
  path: string;
  body: Record<string, unknown>;
  id: string;
  arrivedAt: number;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

export async function startReceiver(
  secret: string,
  onVerified: (n: Notification) => void,
  onRejected: (why: string) => void,
): Promise<Receiver> {
  // whsec_… secrets as they are; any other secret as raw bytes (docs/operations.md)
  const wh = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrivedAt = Date.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown>;
      try {
        body = wh.verify(raw, headersOf(req.headers)) as Record<string, unknown>;
      } catch (err) {
        onRejected(`${req.method} ${req.url}: ${(err as Error).message}`);
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      const id = String(req.headers['webhook-id'] ?? '');
      // retries carry the same id: handle each notification once
      if (id && seen.has(id)) return;
      seen.add(id);
      onVerified({ path: (req.url ?? '').split('?')[0], body, id, arrivedAt });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function headersOf(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
