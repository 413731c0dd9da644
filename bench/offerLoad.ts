/**
 * The load the issue 12 benches put on a POST /oferta endpoint (the service's
 * or the floor's), generated in a worker thread so the bench's own event loop
 * does not pace it: keep-alive connections, the same JSON body with a fresh
 * uuid per request, either as fast as answers come on every connection (a
 * closed loop) or at a fixed rate whatever the answers (an open loop).
 * This module is also the worker's entry.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface OfferLoad {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** JSON body; its `uuid` is replaced by a fresh one per request */
  body: Record<string, unknown>;
  seconds: number;
  connections: number;
  /** requests per second, sent at their time (open loop); absent or 0: closed loop on every connection */
  rate?: number;
}

export interface LoadResult {
  /** of every answered request, in ms, ascending */
  latencies: number[];
  /** answers by status; 0: no answer (the client's error) */
  statuses: Record<number, number>;
  seconds: number;
}

/** POSTs `body` as JSON with a fresh uuid: its status (0 when no answer came) and how long the answer took. */
function postOffer(agent: Agent, spec: OfferLoad): Promise<{ status: number; ms: number }> {
  return new Promise((resolve) => {
    const payload = JSON.stringify({ ...spec.body, uuid: randomUUID() });
    const t = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port: spec.port,
        path: spec.path,
        method: 'POST',
        agent,
        headers: { ...spec.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t }));
    req.end(payload);
  });
}

async function generateLoad(spec: OfferLoad): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const once = async () => {
    const { status, ms } = await postOffer(agent, spec);
    if (status) latencies.push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  const start = performance.now();
  const end = start + spec.seconds * 1000;
  if (spec.rate) {
    const inFlight: Array<Promise<void>> = [];
    let sent = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - start) / 1000) * spec.rate);
      for (; sent < due; sent++) inFlight.push(once());
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: spec.connections }, async () => {
        while (performance.now() < end) await once();
      }),
    );
  }
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { latencies, statuses, seconds };
}

/** Runs `spec` in a worker thread and resolves with what it measured. */
export function offerLoad(spec: OfferLoad): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: spec });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

if (!isMainThread) parentPort!.postMessage(await generateLoad(workerData as OfferLoad));
