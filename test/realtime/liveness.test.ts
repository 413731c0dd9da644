import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TechnicianActions } from '../../src/realtime/actions.js';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { connect, makeCrew, makeGenerator, stalledClient, wsUrl, type Generator } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

async function appWith(env: Record<string, string>): Promise<{ app: TestApp; gen: Generator }> {
  const app = await startApp({ env });
  await resetDb(app.rt.orm);
  return { app, gen: await makeGenerator(app.rt.orm.em.fork()) };
}

describe('real time: heartbeats', () => {
  let app: TestApp;
  let gen: Generator;
  before(async () => ({ app, gen } = await appWith({ HEARTBEAT_MS: '200' })));
  after(async () => app.close());

  it('heartbeats terminate a socket that stops answering pings and keep a live one', async () => {
    const live = await connect(wsUrl(app.url), { headers: gen.headers });
    const dead = await connect(wsUrl(app.url), { headers: gen.headers, autoPong: false });
    let pings = 0;
    live.ws.on('ping', () => pings++);
    const code = await dead.closed();
    expect(code).to.equal(1006);
    expect(app.logs.some((l) => l.msg === 'socket missed its heartbeat; terminated' && l.socketId === dead.socketId)).to.equal(true);
    await waitFor(() => pings >= 3, 3000, 'three pings on the live socket');
    expect(live.ws.readyState).to.equal(live.ws.OPEN);
    await live.close();
  });
});

describe('real time: bounds', () => {
  let app: TestApp;
  let gen: Generator;
  // A paused client misses pings too: a long heartbeat keeps this about the buffer bound.
  before(async () => ({ app, gen } = await appWith({ HEARTBEAT_MS: '60000', WS_MAX_BUFFER_BYTES: '65536', WS_MAX_MESSAGE_BYTES: '4096' })));
  after(async () => app.close());

  it('terminates a client that does not read once its unsent bytes pass WS_MAX_BUFFER_BYTES; others keep receiving', async () => {
    const reader = await connect(wsUrl(app.url), { headers: gen.headers });
    const slow = await stalledClient(wsUrl(app.url), gen.headers);
    const closed = new Promise<void>((resolve) => slow.socket.once('close', () => resolve()));
    const big = 'x'.repeat(256 * 1024);
    const cut = () => app.logs.find((l) => l.msg === 'slow socket terminated' && l.socketId === slow.socketId);
    let sent = 0;
    while (!cut() && sent < 400) {
      await app.rt.events.publish({ kind: 'generator', apiUserId: gen.user.id }, 'test.big', { n: sent++, big });
      await waitFor(() => reader.events('test.big').length === sent, 5000, 'the reader to receive it');
    }
    const entry = cut();
    expect(entry, `stalled socket still open after ${sent} messages`).to.exist;
    expect(entry!.buffered).to.be.a('number').greaterThan(65536);
    expect(app.http.realtime.connections).to.equal(1);
    // the healthy socket got every message and stays open
    expect(reader.ws.readyState).to.equal(reader.ws.OPEN);
    slow.socket.resume();
    await closed;
    await reader.close();
  });

  it('closes a socket that sends a message over WS_MAX_MESSAGE_BYTES (1009)', async () => {
    const s = await connect(wsUrl(app.url), { headers: gen.headers });
    const closed = s.closed();
    s.send('ping', { pad: 'x'.repeat(5000) });
    expect(await closed).to.equal(1009);
  });
});

describe('real time: shutdown', () => {
  it('lets a running action answer, then closes every socket with 1001', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = false;
    const actions: Partial<TechnicianActions> = {
      respond: async () => {
        started = true;
        await gate;
        return { status: 200, body: { status: true, data: 'Oferta aceptada' } };
      },
    };
    const app = await startApp({ http: { realtime: { actions } } });
    try {
      await resetDb(app.rt.orm);
      const em = app.rt.orm.em.fork();
      await makeServiceType(em);
      const crew = await makeCrew(em);
      const gen = await makeGenerator(em);
      const tech = await connect(wsUrl(app.url), { headers: crew.headers });
      const other = await connect(wsUrl(app.url), { headers: gen.headers });
      const techClosed = tech.closed();
      const otherClosed = other.closed();
      tech.send('offer.respond', { id: randomUUID() }, 'last');
      await waitFor(() => started, 2000, 'the action to start');
      const closing = app.http.close();
      open();
      expect((await tech.next('offer.respond.result', (f) => f.ref === 'last')).data).to.deep.equal({
        status: 200,
        body: { status: true, data: 'Oferta aceptada' },
      });
      await closing;
      expect(await techClosed).to.equal(1001);
      expect(await otherClosed).to.equal(1001);
      expect(app.http.realtime.connections).to.equal(0);
    } finally {
      await app.close();
    }
  });
});
