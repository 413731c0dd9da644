/**
 * Issue 8.5: an answer given before the request body was read (413 over BODY_LIMIT, 415, an
 * unknown route…) must reach a client that is still sending. After the answer is ready and before
 * it is sent, the rest of the body is read and thrown away, up to `maxBytes` and `maxMs`; the answer
 * says `Connection: close`. A client that sends more (or declares more) than the bound, or for
 * longer, gets the answer and the connection closed: nobody holds a connection with an endless body.
 * The timeout's 408 (REQUEST_TIMEOUT_MS) is not held by a drain: its body is the one that did not
 * finish in time, so the 408 goes out at once and the connection is closed (issue 29.9).
 */
import type { IncomingMessage } from 'node:http';
import type { Next } from 'koa';
import type { AppContext } from '../context.js';

/** How many times BODY_LIMIT is read and discarded at most, and for how long. */
export const DRAIN_FACTOR = 8;
export const DRAIN_MS = 5000;

/** '1mb' → 1048576 (BODY_LIMIT's format: digits then b, kb or mb). */
export function limitBytes(limit: string): number {
  const m = /^(\d+)(b|kb|mb)$/.exec(limit);
  if (!m) throw new Error(`not a size: ${limit}`);
  return Number(m[1]) * (m[2] === 'mb' ? 1024 * 1024 : m[2] === 'kb' ? 1024 : 1);
}

function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete || req.readableEnded || req.destroyed) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/** Reads and discards `req` until it ends (true) or `maxBytes`/`maxMs` pass or it fails (false). */
function discard(req: IncomingMessage, maxBytes: number, maxMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onFail);
    req.once('close', onClose);
    req.resume();
  });
}

export function drainUnreadBody(bodyLimit: string, maxMs = DRAIN_MS) {
  const maxBytes = DRAIN_FACTOR * limitBytes(bodyLimit);
  return async function drain(ctx: AppContext, next: Next): Promise<void> {
    await next();
    const req = ctx.req;
    if (!hasUnreadBody(req) || ctx.respond === false) return;
    ctx.set('Connection', 'close');
    if (ctx.status === 408) return void ctx.res.once('finish', () => req.socket.destroySoon());
    const declared = Number(req.headers['content-length']);
    const ended = !(declared > maxBytes) && (await discard(req, maxBytes, maxMs));
    // Past the bound: the answer goes out, then the connection is closed whatever the client still sends.
    if (!ended) ctx.res.once('finish', () => req.socket.destroySoon());
  };
}
