/**
 * The real-time endpoints /v1, /v2 and /v3 (spec 1.8, 6.3; decisions D10) on
 * the API's HTTP server, all speaking the same (v3) protocol: authenticated at
 * the upgrade, `connected` {socketId} on open, JSON `{event, data}` frames,
 * heartbeats, a bound on each socket's unsent bytes, and events from every
 * process through Redis pub/sub. Held to HTTP's rules (D24): every open
 * socket's credential is checked again every SOCKET_RECHECK_MS and the socket
 * closed (4401/4403) when it no longer holds; at most SOCKETS_PER_IDENTITY
 * per identity (429 at the upgrade); a cookie needs the service's Origin
 * (auth.ts); actions check the endpoint permissions (src/api/invoke.ts). The
 * protocol is described in docs/realtime.md.
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
import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_INFLIGHT_PER_SOCKET, runAction, technicianActions, type TechnicianActions } from './actions.js';
import { SOCKET_ENDPOINTS, authenticateUpgrade, closeCodeOf, recheckCentralKey, type Identity, type Recheck } from './auth.js';
import { identityCap } from './identityCap.js';
import { Hub, type Client } from './hub.js';
import { PROTOCOL_MESSAGES, frame, isProtocolError, parseIncoming } from './protocol.js';
import { subscribeBus } from './subscriber.js';
import { liveTokenHashes } from '../auth/technicianToken.js';
import { technicianResync } from '../domain/services/technicianWork.js';

/** The close code of a socket whose technician token is no longer valid (D20), as an action's refusal (4401). */
export const TOKEN_REVOKED_CLOSE = 4401;

/** The close reasons of a re-check (D24; at most 123 bytes). */
export const RECHECK_CLOSE_REASONS = { 4401: 'credential revoked or expired', 4403: 'credential no longer allowed' } as const;

export const SOCKET_MESSAGES = {
  tooMany: (n: number) => `DEMASIADAS CONEXIONES ABIERTAS CON ESTA IDENTIDAD (MÁXIMO ${n}); CIERRE ALGUNA ANTES DE ABRIR OTRA`,
} as const;

/** How many distinct credentials one re-check tick checks at once. */
const RECHECK_CONCURRENCY = 8;

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
  const hub = new Hub(cfg.wsMaxBufferBytes, log, cfg.positionNoticeMs);
  const cap = identityCap(rt.redis, cfg.queuePrefix, cfg.socketsPerIdentity, 3 * cfg.socketRecheckMs, log);
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

  const onConnection = (ws: WebSocket, id: string, identity: Identity, recheck: Recheck, path: string) => {
    const client: Client = { id, ws, identity, alive: true, inflight: 0, offers: new Set(), recheck };
    hub.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('message', guarded('socket message', (raw: RawData, isBinary: boolean) => onMessage(client, raw, isBinary), () => ws.terminate()));
    ws.on(
      'close',
      guarded('socket close', () => {
        hub.remove(client);
        cap.release(identity, id);
      }),
    );
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
  const accept = async (req: IncomingMessage, socket: Duplex, head: Buffer, identity: Identity, recheck: Recheck, path: string) => {
    if (closing || socket.destroyed) return refuse(socket, 503, systemBody(PROTOCOL_MESSAGES.closing));
    const id = randomUUID();
    // D24: at most SOCKETS_PER_IDENTITY open per identity, across processes
    if (!(await cap.take(identity, id))) {
      log.info({ kind: identity.kind }, 'socket refused: too many open for this identity');
      return refuse(socket, 429, systemBody(SOCKET_MESSAGES.tooMany(cfg.socketsPerIdentity)), { 'Retry-After': String(Math.ceil(cfg.socketRecheckMs / 1000)) });
    }
    if (closing || socket.destroyed) {
      cap.release(identity, id);
      return refuse(socket, 503, systemBody(PROTOCOL_MESSAGES.closing));
    }
    socket.off('error', onSocketError); // ws handles the socket's errors from here
    let opened = false;
    socket.once('close', () => opened || cap.release(identity, id));
    wss.handleUpgrade(req, socket, head, (ws) => {
      opened = true;
      onConnection(ws, id, identity, recheck, path);
    });
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', onSocketError);
    // An absolute target that does not parse (`GET http://[/v3`) or any other bad target is the client's error.
    const url = URL.parse(req.url ?? '/', 'http://localhost');
    if (!url) return refuse(socket, 400, systemBody(MESSAGES.badTarget));
    if (!SOCKET_PATHS.has(url.pathname)) return refuse(socket, 404, routeNotFoundBody(req.method ?? 'GET', url.pathname));
    if (closing) return refuse(socket, 503, systemBody(PROTOCOL_MESSAGES.closing));
    const guard = authFailures.forClient(clientIp(req, cfg));
    authenticateUpgrade(rt.orm.em.fork(), req, url, { jwtSecret: cfg.jwtSecret, guard, publicOrigin: cfg.publicOrigin })
      .then(({ identity, recheck }) => accept(req, socket, head, identity, recheck, url.pathname))
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
    hub.prunePositionNotices();
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

  /** Closes the sockets whose credential a re-check refused. */
  const refused = (clients: Client[], code: 4401 | 4403, why: string) => {
    for (const c of clients) {
      log.info({ socketId: c.id, kind: c.identity.kind, code }, `socket credential refused on re-check (${why}); closed`);
      c.ws.close(code, RECHECK_CLOSE_REASONS[code]);
    }
  };

  /**
   * D24 (D20 for technician tokens): every open socket's credential checked
   * again. Technician tokens together, one statement per tick; a central's
   * key once for all its technicians' sockets; any other credential once per
   * distinct credential; a few groups at a time. A group's check answers the
   * sockets it no longer holds (closed 4401), or throws the credential's
   * HttpError (all closed). A check that fails for another reason (the
   * database away) closes nothing: the next tick tries again.
   */
  const recheckAll = async () => {
    const tokens = new Map<string, Client[]>();
    type Group = { clients: Client[]; run: (em: EntityManager, clients: Client[]) => Promise<Client[]> };
    const each = new Map<string, Group>();
    const join = (key: string, c: Client, run: Group['run']) => {
      const group = each.get(key) ?? { clients: [], run };
      group.clients.push(c);
      each.set(key, group);
    };
    for (const c of hub.all()) {
      const r = c.recheck;
      if (!r) continue;
      if (r.kind === 'technicianToken') tokens.set(r.tokenHash, [...(tokens.get(r.tokenHash) ?? []), c]);
      else if (r.kind === 'centralKey') {
        const { apiKey } = r;
        join(r.key, c, async (em, clients) => {
          const techId = (x: Client) => (x.identity.kind === 'technician' ? x.identity.technicianId : -1);
          const still = await recheckCentralKey(em, apiKey, [...new Set(clients.map(techId))]);
          return clients.filter((x) => !still.has(techId(x)));
        });
      } else {
        const { run } = r;
        join(r.key, c, async (em) => {
          await run(em);
          return [];
        });
      }
    }
    await cap.renew(hub.all()).catch((err: unknown) => log.warn({ err }, 'socket cap leases not renewed'));
    if (tokens.size) {
      try {
        const live = await liveTokenHashes(rt.orm.em.fork(), [...tokens.keys()], SOCKET_ENDPOINTS.technician);
        for (const [hash, clients] of tokens) if (!live.has(hash)) refused(clients, TOKEN_REVOKED_CLOSE, 'technician token');
      } catch (err) {
        log.warn({ err }, 'technician token re-check failed');
      }
    }
    const groups = [...each.values()];
    const worker = async () => {
      for (let g = groups.shift(); g; g = groups.shift()) {
        try {
          const gone = await g.run(rt.orm.em.fork(), g.clients);
          if (gone.length) refused(gone, 4401, 'no longer the key’s technician');
        } catch (err) {
          if (err instanceof HttpError && (err.status === 401 || err.status === 403)) refused(g.clients, closeCodeOf(err) as 4401 | 4403, g.clients[0].identity.kind);
          else log.warn({ err, kind: g.clients[0].identity.kind }, 'socket credential re-check failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECHECK_CONCURRENCY, groups.length) }, worker));
  };
  let rechecking = false;
  const recheck = setInterval(() => {
    if (rechecking || closing) return;
    rechecking = true;
    // among the running work, so a shutdown waits for it before the ORM closes
    const p: Promise<void> = recheckAll()
      .catch((err: unknown) => log.warn({ err }, 'socket re-check failed'))
      .finally(() => {
        rechecking = false;
        running.delete(p);
      });
    running.add(p);
  }, cfg.socketRecheckMs);
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
      hub.prunePositionNotices(true);
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
