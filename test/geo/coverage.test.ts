import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findCandidates, type CandidateQuery } from '../../src/domain/distribution/candidates.js';
import { CoverageError, setCoverage, setTechnicianPosition } from '../../src/geo/store.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA, makeCentral, makeServiceType, makeTechnician } from '../helpers/factories.js';
import { northOf, square, type LatLng } from '../helpers/geo.js';
import { startApp, type TestApp } from '../helpers/harness.js';

const MEDELLIN = { lat: 6.2442, lng: -75.5812 };

describe('coverage and candidates (D8)', () => {
  let app: TestApp;
  let em: EntityManager;

  const query = (p: LatLng, o: Partial<CandidateQuery> = {}) =>
    findCandidates(em, { lat: p.lat, lng: p.lng, serviceTypeId: 1, radiusKm: 15, maxAgeS: 600, cap: 50, ...o });
  const coveringAt = async (p: LatLng, o: Partial<CandidateQuery> = {}) => (await query(p, o)).centrals;
  const techsAt = async (p: LatLng, o: Partial<CandidateQuery> = {}) => (await query(p, o)).technicians.map((t) => t.technicianId);

  before(async () => {
    app = await startApp();
  });
  beforeEach(async () => {
    await resetDb(app.rt.orm);
    em = app.rt.orm.em.fork();
    await makeServiceType(em, { id: 1, type: 'GRUA' });
    await makeServiceType(em, { id: 2, type: 'CONDUCTOR ELEGIDO' });
  });
  after(async () => app.close());

  describe('coverage', () => {
    it('a polygon covers points inside and on its border, not outside', async () => {
      const c = await makeCentral(em, { coverage: square(BOGOTA, 0.1) });
      expect(await coveringAt(BOGOTA)).to.deep.equal([c.id]);
      expect(await coveringAt({ lat: BOGOTA.lat + 0.0999, lng: BOGOTA.lng - 0.0999 })).to.deep.equal([c.id]);
      // exactly on the western edge, and on a vertex
      expect(await coveringAt({ lat: BOGOTA.lat, lng: BOGOTA.lng - 0.1 })).to.deep.equal([c.id]);
      expect(await coveringAt({ lat: BOGOTA.lat - 0.1, lng: BOGOTA.lng + 0.1 })).to.deep.equal([c.id]);
      expect(await coveringAt({ lat: BOGOTA.lat + 0.1001, lng: BOGOTA.lng })).to.deep.equal([]);
      expect(await coveringAt(MEDELLIN)).to.deep.equal([]);
    });

    it('a multipolygon covers each of its parts and nothing between them', async () => {
      const parts = [square(BOGOTA, 0.05).coordinates, square(MEDELLIN, 0.05).coordinates];
      const c = await makeCentral(em, { coverage: { type: 'MultiPolygon', coordinates: parts } });
      expect(await coveringAt(BOGOTA)).to.deep.equal([c.id]);
      expect(await coveringAt(MEDELLIN)).to.deep.equal([c.id]);
      expect(await coveringAt({ lat: 5.4, lng: -74.8 })).to.deep.equal([]);
    });

    it('a center and radius becomes a polygon true to the radius (inside at 39.8 km, outside at 40.2 km)', async () => {
      const c = await makeCentral(em, { coverage: { center: BOGOTA, radiusKm: 40 } });
      expect(await coveringAt(northOf(BOGOTA, 39.8))).to.deep.equal([c.id]);
      expect(await coveringAt(northOf(BOGOTA, 40.2))).to.deep.equal([]);
      const [row] = await em.getConnection().execute<Array<{ kind: string; areas: number }>>(
        `select geometrytype(area) as kind, count(*)::int as areas from central_area where central_id = ? group by 1`,
        [c.id],
      );
      expect(row).to.deep.equal({ kind: 'MULTIPOLYGON', areas: 1 });
    });

    it('filters by service type: one area per type the central serves', async () => {
      const grua = await makeCentral(em, { serviceTypes: [1], coverage: square(BOGOTA, 0.1) });
      const both = await makeCentral(em, { serviceTypes: [1, 2], coverage: square(BOGOTA, 0.1) });
      expect((await coveringAt(BOGOTA, { serviceTypeId: 1 })).sort()).to.deep.equal([grua.id, both.id].sort());
      expect(await coveringAt(BOGOTA, { serviceTypeId: 2 })).to.deep.equal([both.id]);
      expect(await coveringAt(BOGOTA, { serviceTypeId: 3 })).to.deep.equal([]);
      // replacing the coverage with fewer types removes the others' areas
      await setCoverage(em, both.id, [2], square(BOGOTA, 0.1));
      expect(await coveringAt(BOGOTA, { serviceTypeId: 1 })).to.deep.equal([grua.id]);
    });

    it('refuses an invalid area with a clear error, writes nothing, and leaves the caller’s transaction usable', async () => {
      const c = await makeCentral(em, { coverage: square(BOGOTA, 0.1) });
      const bowtie = { type: 'Polygon' as const, coordinates: [[[-74.2, 4.5], [-74.0, 4.7], [-74.0, 4.5], [-74.2, 4.7], [-74.2, 4.5]]] };
      const open = { type: 'Polygon' as const, coordinates: [[[-74.2, 4.5], [-74.0, 4.5], [-74.0, 4.7]]] };
      for (const bad of [bowtie, open, { center: BOGOTA, radiusKm: 0 }]) {
        const err = await setCoverage(em, c.id, [1], bad).catch((e: unknown) => e);
        expect(err).to.be.instanceOf(CoverageError);
      }
      const bowtieErr = (await setCoverage(em, c.id, [1], bowtie).catch((e: unknown) => e)) as CoverageError;
      expect(bowtieErr.reason).to.match(/self-intersection/i);
      expect(await coveringAt(BOGOTA)).to.deep.equal([c.id]);
      await em.transactional(async (tem) => {
        await setCoverage(tem, c.id, [1], open).catch(() => undefined);
        await setCoverage(tem, c.id, [1], square(MEDELLIN, 0.1));
      });
      expect(await coveringAt(MEDELLIN)).to.deep.equal([c.id]);
    });
  });

  describe('technicians', () => {
    it('counts only available technicians of the type with a fresh position within the radius', async () => {
      const c = await makeCentral(em, { serviceTypes: [1, 2], coverage: { center: BOGOTA, radiusKm: 60 } });
      const ok = await makeTechnician(em, c, { position: northOf(BOGOTA, 2) });
      const anyType = await makeTechnician(em, c, { position: northOf(BOGOTA, 3), serviceTypes: [] });
      await makeTechnician(em, c, { position: northOf(BOGOTA, 1), available: false });
      const driver = await makeTechnician(em, c, { position: northOf(BOGOTA, 1), serviceTypes: [2] });
      await makeTechnician(em, c, { position: null });
      const far = await makeTechnician(em, c, { position: northOf(BOGOTA, 16) });
      const stale = await makeTechnician(em, c, { position: northOf(BOGOTA, 1) });
      await setTechnicianPosition(em, stale.id, northOf(BOGOTA, 1), new Date(Date.now() - 601_000));

      expect(await techsAt(BOGOTA)).to.deep.equal([ok.id, anyType.id]);
      expect(await techsAt(BOGOTA, { maxAgeS: 0 })).to.deep.equal([stale.id, ok.id, anyType.id]);
      expect(await techsAt(BOGOTA, { radiusKm: 30 })).to.deep.equal([ok.id, anyType.id, far.id]);
      expect(await techsAt(BOGOTA, { serviceTypeId: 2 })).to.deep.equal([driver.id, anyType.id]);
    });

    it('takes the nearest first, up to the cap, with their geodesic distances', async () => {
      const c = await makeCentral(em, { coverage: { center: BOGOTA, radiusKm: 60 } });
      const techs = [];
      for (const km of [5, 1, 4, 2, 3]) techs.push({ km, t: await makeTechnician(em, c, { position: northOf(BOGOTA, km) }) });
      const rows = (await query(BOGOTA, { cap: 3 })).technicians;
      const byKm = [...techs].sort((a, b) => a.km - b.km).slice(0, 3);
      expect(rows.map((r) => r.technicianId)).to.deep.equal(byKm.map((x) => x.t.id));
      rows.forEach((r, i) => expect(r.distanceM / 1000).to.be.closeTo(byKm[i].km, 0.002));
    });

    it('never takes technicians of a central that does not cover the point', async () => {
      const covering = await makeCentral(em, { coverage: square(BOGOTA, 0.05) });
      const elsewhere = await makeCentral(em, { coverage: square(MEDELLIN, 0.05) });
      const mine = await makeTechnician(em, covering, { position: northOf(BOGOTA, 1) });
      await makeTechnician(em, elsewhere, { position: northOf(BOGOTA, 0.5) });
      expect(await coveringAt(BOGOTA)).to.deep.equal([covering.id]);
      expect(await techsAt(BOGOTA)).to.deep.equal([mine.id]);
    });
  });
});
