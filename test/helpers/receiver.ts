/**
 * A real local HTTP receiver for webhooks: records each request's method,
 * path, headers and raw body (the exact bytes, for signature checks) and
 * answers from a list of statuses, then 200.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

export interface Receiver {
  url: string;
  calls: Received[];
  /** statuses answered in turn (then 200) */
  replies: number[];
  close(): Promise<void>;
}

export async function startReceiver(replies: number[] = []): Promise<Receiver> {
  const calls: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
      const status = r.replies[calls.length - 1] ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const r: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    replies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return r;
}
