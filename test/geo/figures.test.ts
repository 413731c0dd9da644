import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { computeResponseFigures, estimateMinutes, UNKNOWN_POSITION_MESSAGE } from '../../src/geo/figures.js';
import { DomainError } from '../../src/domain/errors.js';
import { errorAnswer } from '../../src/api/errorTable.js';
import { resetDb } from '../helpers/db.js';
import { makeApiUser, makeCentral, makeOffer, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { vincentyKm } from '../helpers/geo.js';
import { startApp, type TestApp } from '../helpers/harness.js';

// Known places in Bogotá and around it.
const PLAZA_BOLIVAR = { lat: 4.598056, lng: -74.075833 };
const USAQUEN = { lat: 4.694722, lng: -74.030833 };
const EL_DORADO = { lat: 4.701594, lng: -74.146947 };
const SOACHA = { lat: 4.579167, lng: -74.216667 };

describe('response figures (spec 2.3, D2)', () => {
  let app: TestApp;
  let em: EntityManager;
  let offerUuid: string;
  let techId: number;

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1 });
    const { user } = await makeApiUser(em);
    const central = await makeCentral(em);
    techId = (await makeTechnician(em, central, { position: USAQUEN })).id;
    offerUuid = (await makeOffer(em, user, { originLat: PLAZA_BOLIVAR.lat, originLng: PLAZA_BOLIVAR.lng })).uuid;
  });
  after(async () => app.close());

  const figures = (o: { lat?: number | null; lng?: number | null; minutes?: number | null } = {}) =>
    computeResponseFigures(em, { offerUuid, technicianId: techId, ...o }, 30);

  it('uses the last known position when the acceptance has no coordinates: distance within 0.1 % of Vincenty', async () => {
    const f = await figures();
    const expected = vincentyKm(USAQUEN, PLAZA_BOLIVAR);
    expect(expected).to.be.closeTo(11.8, 0.3);
    expect(Math.abs(f.distanceKm - expected) / expected).to.be.lessThan(0.001);
    expect({ lat: f.techLat, lng: f.techLng }).to.deep.equal(USAQUEN);
    expect(f.timeGiven).to.equal(false);
    expect(f.timeMin).to.equal(estimateMinutes(f.distanceKm, 30));
    expect(f.timeMin).to.equal(Math.round((expected / 30) * 60));
  });

  it('uses the acceptance’s coordinates when valid, and techCoords are that same point', async () => {
    for (const p of [EL_DORADO, SOACHA]) {
      const f = await figures({ lat: p.lat, lng: p.lng });
      const expected = vincentyKm(p, PLAZA_BOLIVAR);
      expect(Math.abs(f.distanceKm - expected) / expected).to.be.lessThan(0.001);
      expect({ lat: f.techLat, lng: f.techLng }).to.deep.equal(p);
    }
  });

  it('ignores coordinates that are 0, out of range or not finite (spec 2.1: 0 counts as missing)', async () => {
    const fallback = await figures();
    for (const bad of [{ lat: 0, lng: 0 }, { lat: 91, lng: -74 }, { lat: 4.6, lng: -181 }, { lat: Number.NaN, lng: -74 }, { lat: 4.6, lng: null }]) {
      const f = await figures(bad);
      expect(f.distanceKm).to.equal(fallback.distanceKm);
      expect(f.techLat).to.equal(USAQUEN.lat);
    }
  });

  it('time is tiempoLlegadaSitio when given, else an estimate at the configured speed (at least 1 minute)', async () => {
    const given = await figures({ minutes: 7 });
    expect(given).to.include({ timeMin: 7, timeGiven: true });
    const zero = await figures({ minutes: 0 });
    expect(zero).to.include({ timeMin: 0, timeGiven: true });
    const estimated = await computeResponseFigures(em, { offerUuid, technicianId: techId, minutes: -3 }, 60);
    expect(estimated.timeGiven).to.equal(false);
    expect(estimated.timeMin).to.equal(Math.round(estimated.distanceKm));
    const here = await figures({ lat: PLAZA_BOLIVAR.lat + 0.0001, lng: PLAZA_BOLIVAR.lng });
    expect(here.distanceKm).to.be.closeTo(0.011, 0.001);
    expect(here.timeMin).to.equal(1);
  });

  it('refuses with the data envelope of PUT /aceptacion (400) when the technician’s point is unknown', async () => {
    const central = await makeCentral(em);
    const nowhere = await makeTechnician(em, central, { position: null });
    const err = await computeResponseFigures(em, { offerUuid, technicianId: nowhere.id }, 30).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(DomainError);
    expect(errorAnswer(err, 'data')?.status).to.equal(400);
    expect(errorAnswer(err, 'data')?.body).to.deep.equal({ status: false, data: UNKNOWN_POSITION_MESSAGE });
    // with coordinates in the acceptance it is fine
    const f = await computeResponseFigures(em, { offerUuid, technicianId: nowhere.id, lat: USAQUEN.lat, lng: USAQUEN.lng }, 30);
    expect(f.techLat).to.equal(USAQUEN.lat);
  });
});
