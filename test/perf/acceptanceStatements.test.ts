/**
 * Issue 12.5: PUT /aceptacion on its common path (an offer still ABIERTA, a
 * central that is not the generator's own) costs at most 3 round trips to
 * PostgreSQL, and the authentication none (credentials cached). Counted at
 * the pg driver, as the distribution's statements are; not a timing.
 */
import { expect } from 'chai';
import { OfferResponse } from '../../src/db/entities/index.js';
import { resetDb } from '../helpers/db.js';
import { makeOffer, makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { acceptanceBody, distributeTo, makeGenerator, makeResponder, type Responder } from '../helpers/offers.js';
import { statementsOf } from '../helpers/statements.js';


describe('PUT /aceptacion: round trips on the common path (issue 12.5)', () => {
  let app: TestApp;
  let central: Responder;

  before(async () => {
    app = await startApp({ env: { AUTH_CACHE_TTL_MS: '60000' } });
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
    central = await makeResponder(app.rt.orm.em.fork());
  });
  after(async () => app.close());

  it('records a response in at most 3 statements once the key is cached (2 today), and a second answer replaces the first', async () => {
    const em = app.rt.orm.em.fork();
    const generator = await makeGenerator(em);
    const offer = await makeOffer(em, generator.user);
    await distributeTo(app.rt.orm.em.fork(), offer.uuid, central); // D20: only a recipient answers
    const put = (o: Record<string, unknown>) => app.client.put('api/v3/aceptacion', { headers: { 'x-apikey': central.key }, json: acceptanceBody(offer.uuid, central, o) });
    expect((await put({ tiempoLlegadaSitio: 12 })).statusCode).to.equal(200); // warms the credential cache
    let status = 0;
    const statements = await statementsOf(async () => {
      status = (await put({ tiempoLlegadaSitio: 9 })).statusCode;
    });
    expect(status).to.equal(200);
    expect(statements.length, statements.join("\n---\n")).to.be.at.most(3);
    expect(statements, "the facts, then the locked upsert").to.have.length(2);
    const rows = await app.rt.orm.em.fork().find(OfferResponse, { offer: offer.uuid });
    expect(rows.map((r) => [r.central.id, r.timeMin, r.timeGiven])).to.deep.equal([[central.central.id, 9, true]]);
  });
});
