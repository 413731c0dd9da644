/**
 * Issue 29 item 9: a manual resend of a 6.1 is its own attempt in the
 * delivery log and never touches the offer's D5 acceptance row, so a process
 * that dies mid-resend leaves nothing for the sweeper to settle: an assigned
 * service stays ASIGNADA. Real PostgreSQL, Redis and a real local receiver
 * that holds the resend's request until the test lets it answer.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApiUser, Offer, WebhookDelivery } from '../../../src/db/entities/index.js';
import { resendDelivery } from '../../../src/domain/deliveries/resend.js';
import { sweepOutbox } from '../../../src/domain/outbox/sweep.js';
import { RESEND_IN_FLIGHT } from '../../../src/db/stores/deliveries.js';
import type { TestApp } from '../../helpers/harness.js';
import { offerIn, startOps, type Generator, type Provider } from '../../helpers/ops.js';
import { waitFor } from '../../helpers/wait.js';

describe('resend by hand of a 6.1 (issue 29 item 9)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let server: Server;
  let url: string;
  const held: Array<{ req: IncomingMessage; res: ServerResponse; body: string }> = [];

  before(async () => {
    ({ app, gen, prov } = await startOps());
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => held.push({ req, res, body }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/respuesta`;
    // a resend goes where the generator's profile says (issue 29 item 4): the profile names this receiver
    await app.rt.orm.em.fork().nativeUpdate(ApiUser, { id: gen.user.id }, { urlApi: new URL(url).origin, apiEndpoint: { respuesta: '/respuesta' } });
  });
  after(async () => {
    for (const h of held) if (!h.res.writableEnded) h.res.end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  });

  const fork = () => app.rt.orm.em.fork();
  const admin = { username: 'root', role: 'admin' };

  /** An ASIGNADA offer whose 6.1 was answered 200 two minutes ago (the D5 row, ok). */
  async function acceptedAndAssigned(): Promise<{ offer: Offer; delivery: WebhookDelivery }> {
    const em = fork();
    const offer = await offerIn(em, gen, 'ASIGNADA', prov);
    const at = new Date(Date.now() - 120_000);
    const delivery = em.create(WebhookDelivery, {
      id: randomUUID(),
      offer,
      kind: 'acceptance',
      eventId: randomUUID(),
      url,
      method: 'PUT',
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: { id: offer.uuid, estado: 'ACEPTADA' },
      receiver: gen.user.id,
      state: 'ok',
      attempts: 1,
      statusCode: 200,
      latencyMs: 12,
      replyBody: 'ok',
      error: null,
      createdAt: at,
      sentAt: at,
      completedAt: at,
    });
    await em.flush();
    return { offer, delivery };
  }

  const rowOf = async (id: string) =>
    (await fork().execute<Array<{ state: string; attempts: number; status_code: number | null; sent_at: Date }>>(
      `select state, attempts, status_code, sent_at from webhook_delivery where id = ?`,
      [id],
    ))[0];

  it('leaves the D5 row as it was while the resend is in flight: a process dying there cannot move the offer', async () => {
    const { offer, delivery } = await acceptedAndAssigned();
    const before = await rowOf(delivery.id);
    const resend = resendDelivery(app.rt, { deliveryId: delivery.id, operator: admin });
    const call = await waitFor(() => held.find((h) => h.body.includes(offer.uuid)), 5000, 'the resend to reach the receiver');
    expect(call.req.method).to.equal('PUT');

    // The process "dies" here: what the database holds is what the sweeper finds.
    expect(await rowOf(delivery.id)).to.deep.equal(before);
    const [attempt] = await fork().execute<Array<{ actor: string; error: string; status_code: number | null }>>(
      `select actor, error, status_code from webhook_attempt where delivery_id = ? order by id desc limit 1`,
      [delivery.id],
    );
    expect(attempt).to.deep.equal({ actor: 'operator:root', error: RESEND_IN_FLIGHT, status_code: null });
    expect(await sweepOutbox(app.rt)).to.include({ acceptances: 0 });
    expect((await fork().findOneOrFail(Offer, offer.uuid)).state).to.equal('ASIGNADA');

    // a second resend of the same delivery while the first is in flight is refused
    try {
      await resendDelivery(app.rt, { deliveryId: delivery.id, operator: admin });
      expect.fail('two resends in flight');
    } catch (err) {
      expect((err as { code: string }).code).to.equal('delivery.in-flight');
    }

    call.res.writeHead(500, { 'content-type': 'text/plain' }).end('no');
    const out = await resend;
    expect(out).to.include({ ok: false, statusCode: 500, attempt: 2 });
    // a failed resend moves nothing either: the row keeps the acceptance, the attempt says what the resend got
    expect(await rowOf(delivery.id)).to.deep.equal(before);
    expect((await fork().findOneOrFail(Offer, offer.uuid)).state).to.equal('ASIGNADA');
    const attempts = await fork().execute<Array<{ attempt: number; actor: string; status_code: number | null; error: string | null }>>(
      `select attempt, actor, status_code, error from webhook_attempt where delivery_id = ? order by id`,
      [delivery.id],
    );
    expect(attempts).to.deep.equal([{ attempt: 2, actor: 'operator:root', status_code: 500, error: 'HTTP 500' }]);
  });

  it('a resend that answers 200 is recorded on its own attempt, with the same body', async () => {
    const { delivery } = await acceptedAndAssigned();
    const before = await rowOf(delivery.id);
    const resend = resendDelivery(app.rt, { deliveryId: delivery.id, operator: admin });
    const call = await waitFor(() => held.find((h) => !h.res.writableEnded && h.body.includes(String(delivery.requestBody.id))), 5000, 'the resend');
    expect(JSON.parse(call.body)).to.deep.equal(delivery.requestBody);
    call.res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    expect(await resend).to.include({ ok: true, statusCode: 200 });
    expect(await rowOf(delivery.id)).to.deep.equal(before);
    const [last] = await fork().execute<Array<{ actor: string; status_code: number; error: string | null }>>(
      `select actor, status_code, error from webhook_attempt where delivery_id = ? order by id desc limit 1`,
      [delivery.id],
    );
    expect(last).to.deep.equal({ actor: 'operator:root', status_code: 200, error: null });
  });
});
