/**
 * PUT /aceptacion decides D4's checks once (checkAcceptance, a pure function
 * of the facts read) for both of its paths: the quick path (the facts in one
 * statement, the response upserted under the offer's lock) and the
 * transactional path (the facts through the entities, the state decided under
 * the lock). The same cases, against the real database, fed to both: the same
 * verdict from both ways of reading the facts, and the same outcome (the
 * DomainError's code and details, which give the answer's status and text, or
 * the same answer), except where the quick path must leave the case to the
 * transactional one (the generator's own central, a late acceptance): there
 * it answers nothing and writes nothing.
 */
import { expect } from 'chai';
import nock from 'nock';
import { randomUUID } from 'node:crypto';
import type { ApiUser, Technician } from '../../src/db/entities/index.js';
import { Offer, OfferResponse } from '../../src/db/entities/index.js';
import {
  acceptInTransaction,
  parseAcceptance,
  quickFacts,
  recordQuickly,
  transactionalFacts,
  type AcceptanceInput,
} from '../../src/domain/offers/acceptance/acceptance.js';
import { checkAcceptance, leastArrivalMinutes } from '../../src/domain/offers/acceptance/checks.js';
import { Technician as TechnicianEntity } from '../../src/db/entities/index.js';
import { DomainError } from '../../src/domain/errors.js';
import type { OfferState } from '../../src/domain/offers/lifecycle/states.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeApiUser, makeOffer, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, RESPUESTA_PATH, acceptanceBody, distributeTo, makeGenerator, makeResponder, type Generator, type Responder } from '../helpers/offers.js';

/** One request, ready to be made (its offer made afresh for each path). */
interface Case {
  name: string;
  caller: ApiUser;
  body: AcceptanceInput;
  /** what the quick path must do: decide it as the transactional path does, or leave it to it */
  quick: 'same' | 'defers';
}

type Outcome = { error: string; details: unknown } | { answer: unknown };

describe('PUT /aceptacion: one set of checks for the quick and the transactional paths (D4)', () => {
  let app: TestApp;
  let gen: Generator;
  let r: Responder;
  let other: Responder;
  let own: Responder;
  /** a generator without its acceptance endpoint */
  let bare: Generator;
  /** a central with a technician whose position nobody knows */
  let unplaced: Responder;
  let lost: Technician;
  /** a central whose technician is held by another service (D16) */
  let busy: Responder;
  /** a central whose technician is about 22 km from the origin: at least 11 minutes at 120 km/h (D20) */
  let distant: Responder;
  const fork = () => app.rt.orm.em.fork();

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await makeServiceType(fork(), { id: 1 });
    gen = await makeGenerator(fork());
    r = await makeResponder(fork());
    other = await makeResponder(fork(), { name: 'Grúas del Sur' });
    const owner = await makeApiUser(fork(), { apiKey: `own-${randomUUID()}`, nit: gen.user.nit });
    own = await makeResponder(fork(), { nit: gen.user.nit!, owner: owner.user, name: 'Central Propia' });
    bare = await makeGenerator(fork(), { apiEndpoint: {} });
    unplaced = await makeResponder(fork(), { name: 'Grúas sin posición' });
    lost = await makeTechnician(fork(), unplaced.central, { position: null });
    busy = await makeResponder(fork(), { name: 'Grúas ocupadas' });
    const holding = await makeOffer(fork(), gen.user, { state: 'ASIGNADA', assignedCentral: busy.central, assignedTechnician: busy.technician });
    await fork().nativeUpdate(TechnicianEntity, { id: busy.technician.id }, { busyOfferUuid: holding.uuid });
    distant = await makeResponder(fork(), { name: 'Grúas lejanas', position: { lat: BOGOTA.lat + 0.2, lng: BOGOTA.lng } });
  });
  afterEach(() => nock.cleanAll());
  after(async () => app.close());

  /** An offer in `state`, distributed to every central of the cases but the generator's own (D20). */
  const offerIn = async (state: OfferState, g: Generator = gen) => {
    const { uuid } = await makeOffer(fork(), g.user, { state });
    await distributeTo(fork(), uuid, r, other, unplaced, busy, distant);
    return uuid;
  };
  /** An offer in `state` that reached no central. */
  const undistributed = async (state: OfferState) => (await makeOffer(fork(), gen.user, { state })).uuid;

  /** The cases, built afresh (a new offer) for each path. */
  async function cases(): Promise<Case[]> {
    const body = (uuid: string, who: Responder, o: Record<string, unknown> = {}) => acceptanceBody(uuid, who, o) as AcceptanceInput;
    const list: Case[] = [
      { name: "another user's central", caller: r.user, body: body(await offerIn('ABIERTA'), other), quick: 'same' },
      { name: "another user's central and an unknown offer: the central first", caller: r.user, body: body(randomUUID(), other), quick: 'same' },
      { name: 'an unknown offer', caller: r.user, body: body(randomUUID(), r), quick: 'same' },
      { name: 'an unknown offer and technician: the offer first', caller: r.user, body: { ...body(randomUUID(), r), dniTecnico: 'nadie' }, quick: 'same' },
      { name: 'an unknown technician', caller: r.user, body: { ...body(await offerIn('ABIERTA'), r), dniTecnico: 'nadie' }, quick: 'same' },
      { name: "another central's technician", caller: r.user, body: { ...body(await offerIn('ABIERTA'), r), dniTecnico: other.technician.dni }, quick: 'same' },
      { name: 'a generator without its acceptance endpoint', caller: r.user, body: body(await offerIn('ABIERTA', bare), r), quick: 'same' },
      { name: 'a technician whose position is unknown, no coordinates given', caller: unplaced.user, body: { ...body(await offerIn('ABIERTA'), unplaced), dniTecnico: lost.dni }, quick: 'same' },
      { name: 'the same, with coordinates given', caller: unplaced.user, body: { ...body(await offerIn('ABIERTA'), unplaced), dniTecnico: lost.dni, latitudTecnico: '4.70', longitudTecnico: '-74.08' }, quick: 'same' },
      { name: 'ABIERTA, another central', caller: r.user, body: body(await offerIn('ABIERTA'), r, { tiempoLlegadaSitio: 12 }), quick: 'same' },
      { name: 'ABIERTA, coordinates given, no time', caller: r.user, body: body(await offerIn('ABIERTA'), r, { latitudTecnico: '4.70', longitudTecnico: '-74.08' }), quick: 'same' },
      { name: "ABIERTA, the generator's own central", caller: own.user, body: body(await offerIn('ABIERTA'), own, { tiempoLlegadaSitio: 7 }), quick: 'defers' },
      { name: 'SIN_RESPUESTA: a late acceptance', caller: r.user, body: body(await offerIn('SIN_RESPUESTA'), r), quick: 'defers' },
      // D20: plausible responses only, decided before any response is recorded or ranked
      { name: 'an offer that never reached the central', caller: r.user, body: body(await undistributed('ABIERTA'), r, { tiempoLlegadaSitio: 12 }), quick: 'same' },
      { name: 'a late acceptance of an offer that never reached the central', caller: r.user, body: body(await undistributed('SIN_RESPUESTA'), r), quick: 'same' },
      { name: 'a technician busy with another service', caller: busy.user, body: body(await offerIn('ABIERTA'), busy, { tiempoLlegadaSitio: 12 }), quick: 'same' },
      { name: 'a busy technician, late acceptance', caller: busy.user, body: body(await offerIn('SIN_RESPUESTA'), busy), quick: 'same' },
      { name: 'an arrival sooner than 120 km/h allows from the last position', caller: distant.user, body: body(await offerIn('ABIERTA'), distant, { tiempoLlegadaSitio: 5 }), quick: 'same' },
      { name: 'an arrival of 0 minutes from the coordinates given', caller: r.user, body: body(await offerIn('ABIERTA'), r, { tiempoLlegadaSitio: 0, latitudTecnico: '4.80', longitudTecnico: '-74.0836' }), quick: 'same' },
      { name: 'an implausible arrival, late acceptance', caller: distant.user, body: body(await offerIn('SIN_RESPUESTA'), distant, { tiempoLlegadaSitio: 1 }), quick: 'same' },
      { name: 'a plausible arrival from afar', caller: distant.user, body: body(await offerIn('ABIERTA'), distant, { tiempoLlegadaSitio: 12 }), quick: 'same' },
    ];
    for (const state of ['ACEPTADA', 'ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
      list.push({ name: state, caller: r.user, body: body(await offerIn(state), r), quick: 'same' });
    }
    return list;
  }

  const settle = async (fn: () => Promise<unknown>): Promise<Outcome> => {
    try {
      return { answer: await fn() };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return { error: err.code, details: err.facts };
    }
  };

  /** A case's verdict, with any uuid made by the case named by role. */
  const verdictOf = (c: Case, facts: Parameters<typeof checkAcceptance>[1]) => {
    const v = checkAcceptance(parseAcceptance(c.body), facts);
    return v.ok ? { route: v.route } : { error: v.error.code, details: v.error.facts };
  };

  it('D20: the least plausible arrival is the straight-line distance at 120 km/h, rounded down', () => {
    expect([0, 1999, 2000, 3999, 22_100, 59_999].map(leastArrivalMinutes)).to.deep.equal([0, 0, 1, 1, 11, 29]);
  });

  it('both ways of reading the facts give the same verdict', async () => {
    for (const c of await cases()) {
      const a = parseAcceptance(c.body);
      const quick = verdictOf(c, (await quickFacts(fork(), c.caller, a)).facts);
      const tx = verdictOf(c, (await transactionalFacts(fork(), c.caller, a)).facts);
      expect(quick, c.name).to.deep.equal(tx);
    }
  });

  it('both paths come to the same outcome for each case; the quick one leaves the own central and a late acceptance to the other', async () => {
    const viaQuick = await cases();
    const viaTx = await cases();
    const seen = new Set<string>();
    for (let i = 0; i < viaQuick.length; i++) {
      const [q, t] = [viaQuick[i], viaTx[i]];
      const late = t.name.startsWith('SIN_RESPUESTA');
      const scope = late ? nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200, { ok: true }) : null;
      const quick = await settle(() => recordQuickly(app.rt, fork(), q.caller, parseAcceptance(q.body)));
      const tx = await settle(() => acceptInTransaction(app.rt, fork(), t.caller, parseAcceptance(t.body)));
      if (scope) expect(scope.isDone(), t.name).to.equal(true);
      // the uuid in an offer-not-found is the case's own (random) one; the rest must match as is
      const named = (o: Outcome, c: Case) => JSON.parse(JSON.stringify(o).replaceAll(c.body.id, '<offer>')) as Outcome;
      if (q.quick === 'defers') {
        expect(quick, q.name).to.deep.equal({ answer: null });
        expect(await fork().count(OfferResponse, { offer: q.body.id }), `${q.name}: nothing written`).to.equal(0);
        expect((await fork().findOneOrFail(Offer, { uuid: q.body.id })).state, q.name).to.equal(late ? 'SIN_RESPUESTA' : 'ABIERTA');
        expect(tx, t.name).to.deep.equal({ answer: late ? { kind: 'accepted', paymentPending: false } : { kind: 'recorded' } });
      } else {
        expect(named(quick, q), q.name).to.deep.equal(named(tx, t));
      }
      seen.add('error' in tx ? tx.error : JSON.stringify(tx.answer));
      if ('answer' in quick && quick.answer !== null) {
        // the same response written both ways
        const row = async (uuid: string) => {
          const [x] = await fork().find(OfferResponse, { offer: uuid });
          return [x.distanceKm, x.timeMin, x.timeGiven, x.rate, x.techLat, x.techLng, x.technician.id, x.central.id];
        };
        expect(await row(q.body.id), q.name).to.deep.equal(await row(t.body.id));
      }
    }
    // every check was met at least once
    expect([...seen].sort()).to.deep.equal(
      [
        'acceptance.already-accepted',
        'acceptance.central-not-caller',
        'acceptance.closed',
        'acceptance.generator-api-not-found',
        'offer.not-found',
        'acceptance.position-unknown',
        'acceptance.technician-not-found',
        'acceptance.not-a-recipient',
        'technician.busy',
        'acceptance.arrival-implausible',
        JSON.stringify({ kind: 'accepted', paymentPending: false }),
        JSON.stringify({ kind: 'recorded' }),
      ].sort(),
    );
  });
});
