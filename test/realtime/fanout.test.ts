import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Audience } from '../../src/realtime/bus.js';
import nock from 'nock';
import { BOGOTA, makeServiceType } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';
import { startCleanApp, startApp, type TestApp } from '../helpers/harness.js';
import { connect, makeCrew, makeGenerator, wsUrl, type Crew, type Generator, type TestSocket } from '../helpers/sockets.js';

/** Starts `node dist/src/main/web.js` on an ephemeral port with this run's database and Redis prefix. */
async function spawnApi(): Promise<{ child: ChildProcess; url: string }> {
  const entry = fileURLToPath(new URL('../../src/main/web.js', import.meta.url));
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the API process exited with ${code} before listening`)));
    lines.on('line', (line) => {
      const port = /"msg":"api listening"/.test(line) ? /"port":(\d+)/.exec(line)?.[1] : undefined;
      if (port) resolve(Number(port));
    });
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

describe('real time: two API processes share events through Redis', function () {
  this.timeout(30000);
  let app: TestApp;
  let other: { child: ChildProcess; url: string };
  let genA: Generator;
  let genB: Generator;
  let crew: Crew;
  let here: TestSocket;
  let there: TestSocket;
  let thereB: TestSocket;
  let thereTech: TestSocket;

  before(async () => {
    app = await startCleanApp({ workers: true });
    const em = app.rt.orm.em.fork();
    await makeServiceType(em);
    genA = await makeGenerator(em);
    genB = await makeGenerator(em);
    crew = await makeCrew(em);
    other = await spawnApi();
    [here, there, thereB, thereTech] = await Promise.all([
      connect(wsUrl(app.url), { headers: genA.headers }),
      connect(wsUrl(other.url, '/v2'), { headers: genA.headers }),
      connect(wsUrl(other.url), { headers: genB.headers }),
      connect(wsUrl(other.url), { headers: crew.headers }),
    ]);
  });
  after(async () => {
    if (other.child.exitCode === null) other.child.kill('SIGKILL');
    await app.close();
  });

  const ofA = (uuid: string): Audience => ({ kind: 'offer', offerUuid: uuid, apiUserId: genA.user.id });

  it('an event published in this process reaches the generator’s sockets on both processes, and only them', async () => {
    const uuid = randomUUID();
    await app.rt.events.publish(ofA(uuid), 'offer.state', { uuid, estado: 'ACEPTADA', anterior: 'ABIERTA', fecha: new Date().toISOString() });
    const byUuid = (f: { data: unknown }) => (f.data as { uuid?: string }).uuid === uuid;
    expect((await here.next('offer.state', byUuid)).data).to.include({ estado: 'ACEPTADA' });
    expect((await there.next('offer.state', byUuid)).data).to.include({ estado: 'ACEPTADA' });
    // a marker to B after A's event: once it arrived, A's event would have too
    const mark = randomUUID();
    await app.rt.events.publish({ kind: 'generator', apiUserId: genB.user.id }, 'test.mark', { mark });
    await thereB.next('test.mark');
    expect(thereB.frames.filter(byUuid)).to.deep.equal([]);
  });

  it('a technician on the other process gets its offer and then the end of the window', async () => {
    const uuid = randomUUID();
    await app.rt.events.publish({ kind: 'technician', technicianId: crew.technician.id }, 'offer.new', { uuid, distance: 2 });
    await thereTech.next('offer.new', (f) => (f.data as { uuid: string }).uuid === uuid);
    await app.rt.events.publish(ofA(uuid), 'offer.closed', { uuid, result: 'no-response' });
    const closed = await thereTech.next('offer.closed', (f) => (f.data as { uuid: string }).uuid === uuid);
    expect(closed.data).to.deep.equal({ uuid, result: 'no-response' });
  });

  it('end to end: an offer posted here reaches a technician on the other process, who answers over its socket; the generator sees it live here', async () => {
    const em = app.rt.orm.em.fork();
    const gen = await makeGenerator(em, { endpoints: ['*'], urlApi: 'http://generator-rt.test', apiEndpoint: { respuesta: '/respuesta' } });
    const acceptance = nock('http://generator-rt.test').put('/respuesta').reply(200, { ok: true });
    const genSocket = await connect(wsUrl(app.url), { headers: gen.headers });
    const uuid = randomUUID();
    const posted = await app.client.post('api/v3/oferta', {
      headers: gen.headers,
      json: { uuid, tipoServicio: '1', latitudOrigen: BOGOTA.lat, longitudOrigen: BOGOTA.lng, fechaCita: '' },
    });
    expect(posted.statusCode).to.equal(200);
    const ofUuid = (f: { data: unknown }) => (f.data as { uuid?: string }).uuid === uuid;

    await thereTech.next('offer.new', ofUuid);
    thereTech.send('offer.respond', { id: uuid, tiempoLlegadaSitio: 9 }, 'e2e');
    const result = await thereTech.next('offer.respond.result', (f) => f.ref === 'e2e');
    expect(result.data).to.deep.equal({
      status: 200,
      body: { status: true, data: 'RESPUESTA ACEPTADA, ESPERA POR FAVOR A QUE SE CONFIRME LA ASIGNACIÓN DEL SERVICIO' },
    });

    const live = await genSocket.next('offer.response', ofUuid);
    expect((live.data as { response: { time: number; tech_names: string } }).response).to.include({ time: 9, tech_names: crew.technician.names });
    const accepted = await genSocket.next('offer.accepted', ofUuid, 10000);
    expect((accepted.data as { accepted: { time: number } }).accepted.time).to.equal(9);
    await waitFor(() => acceptance.isDone(), 5000, 'the acceptance notification');
    await genSocket.close();
  });

  it('SIGTERM on the other process closes its sockets with 1001 and exits 0; this process’s socket stays', async () => {
    const codes = Promise.all([there.closed(), thereB.closed(), thereTech.closed()]);
    other.child.kill('SIGTERM');
    const [exitCode] = (await once(other.child, 'exit')) as [number | null];
    expect(await codes).to.deep.equal([1001, 1001, 1001]);
    expect(exitCode).to.equal(0);
    expect(here.ws.readyState).to.equal(here.ws.OPEN);
  });
});
