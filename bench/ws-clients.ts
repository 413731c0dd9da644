/**
 * The client side of bench/ws-capacity.ts, in a process of its own so the API
 * process's memory is only the server's. Driven over IPC:
 *   {cmd: 'open', url, to, batch}   → {cmd: 'opened', held, error}
 *   {cmd: 'watch', uuid, count}     → {cmd: 'enrolled'} once the first `count` sockets got offer.new for uuid,
 *                                     then {cmd: 'arrived', at: number[]} with each one's offer.state arrival
 *                                     (performance.timeOrigin + performance.now(), comparable across processes)
 *   {cmd: 'reset'}                  → {cmd: 'reset'} once every socket is closed
 */
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';

export type ClientCommand =
  | { cmd: 'open'; url: string; to: number; batch: number; apiKey: string; dniPrefix: string }
  | { cmd: 'watch'; uuid: string; count: number }
  | { cmd: 'reset' };

export type ClientReply =
  | { cmd: 'opened'; held: number; error: string | null }
  | { cmd: 'enrolled' }
  | { cmd: 'arrived'; at: number[] }
  | { cmd: 'reset' };

interface Sock {
  ws: WebSocket;
  onText?: (text: string) => void;
}

const socks: Sock[] = [];
const now = () => performance.timeOrigin + performance.now();
const reply = (r: ClientReply) => process.send!(r);

function open(url: string, apiKey: string, dni: string): Promise<Sock> {
  const ws = new WebSocket(url, { headers: { 'x-apikey': apiKey, 'x-dni-tecnico': dni }, perMessageDeflate: false });
  const s: Sock = { ws };
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('unexpected-response', (_q, res) => reject(new Error(`refused with ${res.statusCode}`)));
    ws.on('message', (raw) => {
      const text = String(raw);
      if (text.startsWith('{"event":"connected"')) resolve(s);
      else s.onText?.(text);
    });
  });
}

async function openUpTo(c: Extract<ClientCommand, { cmd: 'open' }>): Promise<string | null> {
  while (socks.length < c.to) {
    const start = socks.length;
    const n = Math.min(c.batch, c.to - start);
    const results = await Promise.allSettled(Array.from({ length: n }, (_, k) => open(c.url, c.apiKey, `${c.dniPrefix}${start + k}`)));
    for (const r of results) if (r.status === 'fulfilled') socks.push(r.value);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) return String(failed.reason);
  }
  return null;
}

function watch(uuid: string, count: number): void {
  const targets = socks.slice(0, count);
  const at: number[] = [];
  let enrolled = 0;
  for (const s of targets) {
    s.onText = (text) => {
      if (!text.includes(uuid)) return;
      if (text.startsWith('{"event":"offer.new"')) {
        if (++enrolled === targets.length) reply({ cmd: 'enrolled' });
      } else if (text.startsWith('{"event":"offer.state"')) {
        at.push(now());
        if (at.length === targets.length) reply({ cmd: 'arrived', at });
      }
    };
  }
}

async function reset(): Promise<void> {
  const closed = socks.map((s) => once(s.ws, 'close'));
  for (const s of socks) s.ws.terminate();
  await Promise.all(closed);
  socks.length = 0;
}

process.on('message', (c: ClientCommand) => {
  if (c.cmd === 'open') void openUpTo(c).then((error) => reply({ cmd: 'opened', held: socks.length, error }));
  else if (c.cmd === 'watch') watch(c.uuid, c.count);
  else void reset().then(() => reply({ cmd: 'reset' }));
});
process.on('disconnect', () => process.exit(0));
