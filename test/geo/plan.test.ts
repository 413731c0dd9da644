import { expect } from 'chai';
import { loadGeoWorld } from '../../bench/geoLoad.js';
import { explainCandidates, explainCandidatesMany } from '../../src/db/stores/technicians.js';
import { findCandidates, findCandidatesMany } from '../../src/domain/distribution/candidates.js';
import { resetDb } from '../helpers/db.js';
import { BOGOTA } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Order By'?: string;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

describe('the candidates query at scale (1,000 centrals, 100,000 technicians)', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    await loadGeoWorld(app.rt.orm.em.fork(), { centrals: 1000, technicians: 100_000 });
  });
  after(async () => {
    await resetDb(app.rt.orm);
    await app.close();
  });

  it('walks the coverage GiST and the technicians’ GiST in distance order, and reads no table whole', async () => {
    const em = app.rt.orm.em.fork();
    for (const [serviceTypeId, radiusKm] of [[1, 15], [3, 30]]) {
      const q = { lat: BOGOTA.lat, lng: BOGOTA.lng, serviceTypeId, radiusKm, maxAgeS: 600, cap: 50 };
      const [row] = await explainCandidates(em, q);
      const all = nodes((row['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
      const scans = all.filter((n) => n['Relation Name']).map((n) => `${n['Node Type']} ${n['Relation Name']} ${n['Index Name'] ?? ''}`.trim());
      expect(scans).to.have.members([
        'Index Scan central_area central_area_area_gist',
        'Index Scan technician technician_available_position_gist',
      ]);
      // the technicians come from the KNN walk (index order, no sort of technicians)
      const knn = all.find((n) => n['Index Name'] === 'technician_available_position_gist')!;
      expect(knn['Order By']).to.match(/<->/);
      // and it finds what it should: covering centrals, then technicians nearest first, capped, within the radius
      const { centrals, technicians } = await findCandidates(em, q);
      expect(centrals.length).to.be.greaterThan(10);
      expect(technicians).to.have.length(50);
      const d = technicians.map((r) => r.distanceM);
      expect(d).to.deep.equal([...d].sort((x, y) => x - y));
      expect(d[49]).to.be.at.most(radiusKm * 1000);
    }
  });

  it('the batch form walks the same indexes for each offer and finds what the one-offer form finds', async () => {
    const em = app.rt.orm.em.fork();
    const qs = [
      { key: 'a', lat: BOGOTA.lat, lng: BOGOTA.lng, serviceTypeId: 1, radiusKm: 15, maxAgeS: 600, cap: 50 },
      { key: 'b', lat: BOGOTA.lat + 0.05, lng: BOGOTA.lng - 0.03, serviceTypeId: 3, radiusKm: 30, maxAgeS: 600, cap: 50 },
      { key: 'c', lat: BOGOTA.lat - 0.04, lng: BOGOTA.lng + 0.02, serviceTypeId: 1, radiusKm: 10, maxAgeS: 600, cap: 20 },
    ];
    const [row] = await explainCandidatesMany(em, qs);
    const all = nodes((row['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
    const scans = all.filter((n) => n['Relation Name']).map((n) => `${n['Node Type']} ${n['Relation Name']} ${n['Index Name'] ?? ''}`.trim());
    expect(scans).to.have.members([
      'Index Scan central_area central_area_area_gist',
      'Index Scan technician technician_available_position_gist',
    ]);
    expect(all.find((n) => n['Index Name'] === 'technician_available_position_gist')!['Order By']).to.match(/<->/);
    const many = await findCandidatesMany(em, qs);
    for (const { key, ...q } of qs) {
      const one = await findCandidates(em, q);
      const got = many.get(key)!;
      expect([...got.centrals].sort(), key).to.deep.equal([...one.centrals].sort());
      // the same distances in the same order (technicians at equal distances may come in another order)
      expect(got.technicians.map((t) => t.distanceM), key).to.deep.equal(one.technicians.map((t) => t.distanceM));
      expect(got.technicians.length, key).to.be.greaterThan(0);
    }
  });
});
