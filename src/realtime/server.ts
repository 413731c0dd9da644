/**
 * The real-time endpoints /v1, /v2 and /v3 (spec 1.8, 6.3; decisions D10) on
 * the API's HTTP server, all speaking the same (v3) protocol: authenticated at
 * the upgrade, `connected` {socketId} on open, JSON `{event, data}` frames,
 * heartbeats, a bound on each socket's unsent bytes, and events from every
 * process through Redis pub/sub. The protocol is described in docs/realtime.md.
 */
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_S, isOutage } from '../outage.js';
import { countSocketsWith } from '../metrics/metrics.js';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { authFailLimit } from '../auth/failLimit.js';
import { clientAddress, type ProxyTrust } from '../auth/clientAddress.js';
import { HttpError, MESSAGES, newErrorId, systemBody } from '../envelopes.js';
import { routeNotFoundBody } from '../api/errors.js';
import type { Runtime } from '../domain/ports.js';
import { MAX_INFLIGHT_PER_SOCKET, runAction, technicianActions, type TechnicianActions } from './actions.js';
import { authenticateUpgrade, type Identity } from './auth.js';
import { Hub, type Client } from './hub.js';
import { PROTOCOL_MESSAGES, frame, isProtocolError, parseIncoming } from './protocol.js';
import { subscribeBus } from './subscriber.js';
import { liveTokenHashes } from '../auth/technicianToken.js';
import { technicianResync } from '../domain/services/technicianWork.js';

/** The close code of a socket whose technician token is no longer valid (D20), as an action's refusal (4401). */
export const TOKEN_REVOKED_CLOSE = 4401;

export const SOCKET_PATHS: ReadonlySet<string> = new Set(['/v1', '/v2', '/v3']);

/** How long shutdown waits for running actions, then for sockets to close. */
const DRAIN_MS = 5000;
const CLOSE_MS = 2000;

export interface RealtimeOptions {
  /** the domain functions technicians' messages call (default: the wired `technicianActions`) */
  actions?: Partial<TechnicianActions>;
}

export interface RealtimeServer {
  /** sockets this process holds */
  readonly connections: number;
  /** offers with technician sockets enrolled for their events */
  readonly trackedOffers: number;
  /** refuse new sockets, let running actions answer, close every socket (1001) and the subscriber */
  close(): Promise<void>;
}

/** Answers an upgrade request with a plain HTTP error and closes the socket. */
function refuse(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const text = JSON.stringify(body);
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}

/** The client's address as HTTP's `ctx.ip` has it (D24: TRUST_PROXY_HOPS from the right, a valid IP). */
function clientIp(req: IncomingMessage, trust: ProxyTrust): string {
  return clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress, trust);
}

/** Resolves when `p` settles or after `ms`, whichever comes first. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export async function attachRealtime(rt: Runtime, server: Server, opts: RealtimeOptions = {}): Promise<RealtimeServer> {
  const cfg = rt.config;
  const log = rt.log.child({ module: 'realtime' });
  const actions = opts.actions ?? technicianActions;
  const hub = new Hub(cfg.wsMaxBufferBytes, log);
  // D19: this process's sockets by kind, read at each metrics publication
  countSocketsWith(() => {
    const counts: Record<string, number> = { generator: 0, technician: 0, operator: 0, customer: 0 };
    for (const c of hub.all()) counts[c.identity.kind] += 1;
    return counts;
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: cfg.wsMaxMessageBytes, perMessageDeflate: false, clientTracking: false });
  const running = new Set<Promise<void>>();
  const authFailures = authFailLimit(rt);
  let closing = false;

  const bus = await subscribeBus(rt.redis, cfg.queuePrefix, log, (msg) => hub.route(msg));

  const onMessage = (client: Client, raw: RawData, isBinary: boolean) => {
    client.alive = true;
    const msg = parseIncoming(raw, isBinary, client.identity.kind);
    if (isProtocolError(msg)) return hub.send(client, frame('error', { message: msg.message, details: msg.details }, msg.ref));
    if (msg.event === 'ping') return hub.send(client, frame('pong', {}, msg.ref));
    const refusal = closing ? PROTOCOL_MESSAGES.closing : client.inflight >= MAX_INFLIGHT_PER_SOCKET ? PROTOCOL_MESSAGES.busy : null;
    if (refusal) return hub.send(client, frame('error', { message: refusal, details: { event: msg.event } }, msg.ref));
    client.inflight++;
    const p: Promise<void> = Promise.resolve()
      .then(() => runAction(rt, hub, client, msg, actions))
      .catch((err: unknown) => log.error({ err, socketId: client.id, errorId: newErrorId() }, 'socket action failed'))
      .finally(() => {
        client.inflight--;
        running.delete(p);
      });
    running.add(p);
  };

  const onConnection = (ws: WebSocket, identity: Identity, path: string) => {
    const client: Client = { id: randomUUID(), ws, identity, alive: true, inflight: 0, offers: new Set() };
    hub.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('message', guarded('socket message', (raw: RawData, isBinary: boolean) => onMessage(client, raw, isBinary), () => ws.terminate()));
    ws.on('close', guarded('socket close', () => hub.remove(client)));
    ws.on('error', (err) => log.debug({ err, socketId: client.id }, 'socket error'));
    hub.send(client, frame('connected', { socketId: client.id }));
    log.debug({ socketId: client.id, kind: identity.kind, path }, 'socket connected');
    if (identity.kind === 'technician') resync(client, identity.technicianId);
  };

  // D20: a technician's socket that (re)connects receives again its open unanswered offers and its service, alone.
  const resync = (client: Client, technicianId: number) => {
    const p: Promise<void> = technicianResync(rt.orm.em.fork(), technicianId)
      .then((messages) => {
        for (const m of messages) hub.sendTo(client, m);
      })
      .catch((err: unknown) => log.warn({ err, socketId: client.id }, 'technician resync failed'))
      .finally(() => running.delete(p));
    running.add(p);
  };

  // Not a closure of onUpgrade: that would keep each request (and its headers) alive as long as its socket.
  const onSocketError = (err: Error) => log.debug({ err }, 'upgrade socket error');
  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, identity: Identity, path: string) => {
    if (closing || socket.destroyed) return refuse(socket, 503, systemBody(PROTOCOL_MESSAGES.closing));
    socket.off('error', onSocketError); // ws handles the socket's errors from here
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, identity, path));
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', onSocketError);
    // An absolute target that does not parse (`GET http://[/v3`) or any other bad target is the client's error.
    const url = URL.parse(req.url ?? '/', 'http://localhost');
    if (!url) return refuse(socket, 400, systemBody(MESSAGES.badTarget));
    if (!SOCKET_PATHS.has(url.pathname)) return refuse(socket, 404, routeNotFoundBody(req.method ?? 'GET', url.pathname));
    if (closing) return refuse(socket, 503, systemBody(PROTOCOL_MESSAGES.closing));
    authenticateUpgrade(rt.orm.em.fork(), req, url, cfg.jwtSecret, authFailures.forClient(clientIp(req, cfg)))
      .then((identity) => accept(req, socket, head, identity, url.pathname))
      .catch((err: unknown) => {
        if (err instanceof HttpError) return refuse(socket, err.status, err.body, err.headers);
        // D21: PostgreSQL or Redis away: try again later, not a 500
        if (isOutage(err)) return refuse(socket, 503, systemBody(UNAVAILABLE_MESSAGE), { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) });
        const body = systemBody(MESSAGES.internal);
        log.error({ err, errorId: body.errorId }, 'socket upgrade failed');
        refuse(socket, 500, body);
      })
      .catch((err: unknown) => {
        log.error({ err, errorId: newErrorId() }, 'socket upgrade failed');
        socket.destroy();
      });
  };

  /**
   * Wraps an event handler so that an unexpected error is logged with an errorId (spec 7.2 form)
   * and the process keeps serving; `after` cleans up (e.g. ends the socket concerned).
   */
  function guarded<A extends unknown[]>(what: string, handler: (...args: A) => void, after?: () => void): (...args: A) => void {
    return (...args: A) => {
      try {
        handler(...args);
      } catch (err) {
        log.error({ err, errorId: newErrorId() }, `${what} failed`);
        try {
          after?.();
        } catch {
          // nothing more to do for this socket
        }
      }
    };
  }
  const onUpgradeSafe = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      onUpgrade(req, socket, head);
    } catch (err) {
      const body = systemBody(MESSAGES.internal);
      log.error({ err, errorId: body.errorId }, 'socket upgrade failed');
      refuse(socket, 500, body);
    }
  };
  server.on('upgrade', onUpgradeSafe);

  const heartbeat = setInterval(() => {
    hub.sweep();
    for (const c of hub.all()) {
      if (!c.alive) {
        log.info({ socketId: c.id, kind: c.identity.kind }, 'socket missed its heartbeat; terminated');
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      if (c.ws.readyState === c.ws.OPEN) c.ws.ping();
    }
  }, cfg.heartbeatMs);
  heartbeat.unref();

  // D20: the sockets opened with a technician's token are re-checked together (one statement per tick); a token
  // no longer live (expired, technician or central INACTIVO, the key changed) closes its sockets.
  let rechecking = false;
  const recheck = setInterval(() => {
    if (rechecking) return;
    const byHash = new Map<string, Client[]>();
    for (const c of hub.all()) {
      if (c.identity.kind !== 'technician' || !c.identity.tokenHash) continue;
      byHash.set(c.identity.tokenHash, [...(byHash.get(c.identity.tokenHash) ?? []), c]);
    }
    if (!byHash.size) return;
    rechecking = true;
    liveTokenHashes(rt.orm.em.fork(), [...byHash.keys()])
      .then((live) => {
        for (const [hash, clients] of byHash) {
          if (live.has(hash)) continue;
          for (const c of clients) {
            log.info({ socketId: c.id }, 'technician token no longer valid; socket closed');
            c.ws.close(TOKEN_REVOKED_CLOSE, 'token revoked');
          }
        }
      })
      .catch((err: unknown) => log.warn({ err }, 'technician token re-check failed'))
      .finally(() => (rechecking = false));
  }, cfg.technicianTokenRecheckMs);
  recheck.unref();

  return {
    get connections() {
      return hub.size;
    },
    get trackedOffers() {
      return hub.trackedOffers;
    },
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(heartbeat);
      clearInterval(recheck);
      await within(Promise.allSettled([...running]), DRAIN_MS);
      const clients = [...hub.all()];
      const closed = Promise.all(clients.map((c) => new Promise((resolve) => c.ws.once('close', resolve))));
      for (const c of clients) c.ws.close(1001, 'server shutting down');
      await within(closed, CLOSE_MS);
      for (const c of hub.all()) c.ws.terminate();
      server.off('upgrade', onUpgradeSafe);
      wss.close();
      await bus.close();
    },
  };
}
