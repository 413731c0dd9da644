import { expect } from 'chai';
import argon2 from 'argon2';
import { loadConfig } from '../../config/index.js';
import { ApiUser, Central, GazetteerEntry, OperatorUser, ServiceType, Technician } from '../../src/db/entities/index.js';
import { setTechnicianPosition } from '../../src/geo/store.js';
import { GazetteerGeocoder } from '../../src/geocoding/index.js';
import { sha256Hex } from '../../src/auth/passwords.js';
import { createRuntime, type Runtime } from '../../src/main/runtime.js';
import { provision, type ProvisionResult, type ProvisionSummary } from '../../src/provisioning/index.js';
import { resetDb } from '../helpers/db.js';
import { demoDocument, EMPTY_COUNTS, exampleDocument, rowCounts, snapshot } from '../helpers/provisioning.js';

function summaryOf(result: ProvisionResult): ProvisionSummary {
  if (!result.ok) throw new Error(`unexpected problems:\n${result.problems.join('\n')}`);
  return result.summary;
}

function problemsOf(result: ProvisionResult): string[] {
  if (result.ok) throw new Error('the document was accepted');
  return result.problems;
}

const allUnchanged = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, { created: 0, updated: 0, unchanged: n }]));

describe('provisioning', () => {
  let rt: Runtime;
  const em = () => rt.orm.em.fork();

  before(async () => {
    rt = await createRuntime(loadConfig(process.env));
  });
  after(async () => rt.close());
  beforeEach(async () => resetDb(rt.orm));

  it('loads the contract example: every section, credentials hashed, coverage and positions in PostGIS', async () => {
    const summary = summaryOf(await provision(em(), exampleDocument()));
    expect(summary).to.deep.equal({
      businessLines: { created: 2, updated: 0, unchanged: 0 },
      serviceTypes: { created: 3, updated: 0, unchanged: 0 },
      apiUsers: { created: 2, updated: 0, unchanged: 0 },
      centrals: { created: 1, updated: 0, unchanged: 0 },
      technicians: { created: 2, updated: 0, unchanged: 0 },
      operators: { created: 1, updated: 0, unchanged: 0 },
      gazetteer: { created: 3, updated: 0, unchanged: 0 },
    });

    const e = em();
    const grua = await e.findOneOrFail(ServiceType, { id: 1 }, { populate: ['line'] });
    expect(grua).to.include({ type: 'GRUA', requiredOrigin: true, requiredDestination: true });
    expect(grua.line?.code).to.equal('VEH');

    const insurer = await e.findOneOrFail(ApiUser, { username: 'aseguradora-demo' });
    expect(insurer.passwordSha256).to.equal(sha256Hex('demo-secret-1'));
    expect(insurer).to.include({ status: 'ACTIVO', nit: '900100200', urlApi: 'http://127.0.0.1:4010', apiKeyHash: null });
    expect(insurer.endpoints).to.deep.equal(['*']);
    expect(insurer.apiEndpoint).to.deep.equal({ respuesta: '/webhooks/aceptacion', estado: '/webhooks/estado' });
    const tow = await e.findOneOrFail(ApiUser, { username: 'gruas-andinas' });
    // D24: only the key's hash is stored
    expect(tow.apiKeyHash).to.equal(sha256Hex('ga-demo-key-0123456789abcdef'));

    const central = await e.findOneOrFail(Central, { nit: '901555111' }, { populate: ['apiUser'] });
    expect(central.apiUser?.username).to.equal('gruas-andinas');
    expect(central.serviceTypes).to.deep.equal([1, 3]);
    const areas = await e.getConnection().execute<Array<{ type: number; center: boolean; edge: boolean; medellin: boolean }>>(
      `select service_type_id as type,
              st_covers(area, st_setsrid(st_makepoint(-74.0836, 4.6533), 4326)) as center,
              st_covers(area, st_setsrid(st_makepoint(-74.0836, 4.6533 + 39.0 / 111.0), 4326)) as edge,
              st_covers(area, st_setsrid(st_makepoint(-75.5812, 6.2442), 4326)) as medellin
         from central_area where central_id = ? order by service_type_id`,
      [central.id],
    );
    expect(areas).to.deep.equal([
      { type: 1, center: true, edge: true, medellin: false },
      { type: 3, center: true, edge: true, medellin: false },
    ]);

    const techs = await e.getConnection().execute<Array<{ dni: string; lat: number; lng: number; at: string | null; off_m: number }>>(
      `select dni, lat, lng, position_at as at,
              st_distance(position, st_setsrid(st_makepoint(lng, lat), 4326)::geography) as off_m
         from technician order by dni`,
    );
    expect(techs.map((t) => [t.dni, t.lat, t.lng])).to.deep.equal([
      ['1020304050', 4.6761, -74.0483],
      ['1030405060', 4.6097, -74.0817],
    ]);
    for (const t of techs) {
      expect(t.at).to.be.a('string');
      expect(Number(t.off_m)).to.be.lessThan(0.01);
    }
    const luisa = await e.findOneOrFail(Technician, { dni: '1030405060' }, { populate: ['central'] });
    expect(luisa).to.include({ names: 'Luisa Fernanda Ríos', rate: 4.9, available: true, identifier: 'GA-12' });
    expect(luisa.central.nit).to.equal('901555111');
    expect(luisa.serviceTypes).to.deep.equal([1, 3]);

    const ops = await e.findOneOrFail(OperatorUser, { username: 'ops' });
    expect(ops.role).to.equal('admin');
    expect(ops.passwordHash).to.match(/^\$argon2/);
    expect(await argon2.verify(ops.passwordHash, 'change-me-now')).to.equal(true);
  });

  it('writes a generator’s help line for its customers (issue 31, CUS-3), and refuses one that is no phone', async () => {
    summaryOf(await provision(em(), demoDocument()));
    expect((await em().findOneOrFail(ApiUser, { username: 'aseguradora-demo' })).helpLine).to.equal('+57 601 555 0199');
    expect((await em().findOneOrFail(ApiUser, { username: 'gruas-andinas' })).helpLine).to.equal(null);
    const bad = demoDocument();
    bad.apiUsers![0].helpLine = 'llámenos';
    expect(problemsOf(await provision(em(), bad)).join('\n')).to.include('/apiUsers/0/helpLine');
  });

  it('loads the demo document: the department capitals resolve through the gazetteer geocoder', async () => {
    const summary = summaryOf(await provision(em(), demoDocument()));
    expect(summary.gazetteer).to.deep.equal({ created: 34, updated: 0, unchanged: 0 });
    const departments = await em().getConnection().execute<Array<{ n: number }>>(
      `select count(distinct departamento)::int as n from gazetteer`,
    );
    expect(departments[0].n).to.equal(33); // 32 departments and the Capital District
    const geocoder = new GazetteerGeocoder(() => em());
    expect(await geocoder.geocode('CUCUTA')).to.deep.equal({ lat: 7.8939, lng: -72.5078, ciudad: 'Cúcuta', departamento: 'Norte de Santander' });
    expect(await geocoder.geocode('San José del Guaviare')).to.include({ departamento: 'Guaviare' });
    expect(await geocoder.geocode('leticia')).to.include({ departamento: 'Amazonas' });
  });

  it('a second run changes nothing and reports every row unchanged', async () => {
    const first = summaryOf(await provision(em(), demoDocument()));
    const before = await snapshot(em());
    const second = summaryOf(await provision(em(), demoDocument()));
    const created = Object.fromEntries(Object.entries(first).map(([s, c]) => [s, c.created]));
    expect(second).to.deep.equal(allUnchanged(created));
    expect(await snapshot(em())).to.deep.equal(before);
  });

  it('a changed document updates exactly the rows that differ', async () => {
    summaryOf(await provision(em(), demoDocument()));
    const before = await em().findOneOrFail(ApiUser, { username: 'aseguradora-demo' });
    const untouched = await em().findOneOrFail(ApiUser, { username: 'gruas-andinas' });

    const doc = demoDocument();
    doc.businessLines![1].name = 'MOVILIDAD URBANA';
    doc.serviceTypes![2].line = 'MOV';
    doc.apiUsers![0].status = 'INACTIVO';
    doc.apiUsers![0].apiEndpoint = { estado: '/webhooks/estado', respuesta: '/webhooks/aceptacion' }; // same map, other key order
    (doc.centrals![0].coverage as { radiusKm: number }).radiusKm = 20;
    doc.technicians![0].names = 'Carlos Pérez';
    doc.operators![0].password = 'a-brand-new-password';
    doc.gazetteer![2].lat = 6.25;
    const summary = summaryOf(await provision(em(), doc));
    expect(summary).to.deep.equal({
      businessLines: { created: 0, updated: 1, unchanged: 1 },
      serviceTypes: { created: 0, updated: 1, unchanged: 2 },
      apiUsers: { created: 0, updated: 1, unchanged: 1 },
      centrals: { created: 0, updated: 1, unchanged: 0 },
      technicians: { created: 0, updated: 1, unchanged: 1 },
      operators: { created: 0, updated: 1, unchanged: 0 },
      gazetteer: { created: 0, updated: 1, unchanged: 33 },
    });

    const after = await em().findOneOrFail(ApiUser, { username: 'aseguradora-demo' });
    expect(after.status).to.equal('INACTIVO');
    expect(after.updatedAt.getTime()).to.be.greaterThan(before.updatedAt.getTime());
    const still = await em().findOneOrFail(ApiUser, { username: 'gruas-andinas' });
    expect(still.updatedAt.getTime()).to.equal(untouched.updatedAt.getTime());
    const ops = await em().findOneOrFail(OperatorUser, { username: 'ops' });
    expect(await argon2.verify(ops.passwordHash, 'a-brand-new-password')).to.equal(true);
    const [edge] = await em().getConnection().execute<Array<{ covered: boolean }>>(
      `select bool_and(st_covers(area, st_setsrid(st_makepoint(-74.0836, 4.6533 + 30.0 / 111.0), 4326))) as covered from central_area`,
    );
    expect(edge.covered).to.equal(false);
  });

  it('writes a technician’s status (D20): ACTIVO by default, INACTIVO when the document says so, and back', async () => {
    summaryOf(await provision(em(), demoDocument()));
    expect((await em().findOneOrFail(Technician, { dni: '1020304050' })).status).to.equal('ACTIVO');
    const doc = demoDocument();
    doc.technicians![0].status = 'INACTIVO';
    expect(summaryOf(await provision(em(), doc)).technicians).to.deep.equal({ created: 0, updated: 1, unchanged: 1 });
    expect((await em().findOneOrFail(Technician, { dni: '1020304050' })).status).to.equal('INACTIVO');
    expect(summaryOf(await provision(em(), demoDocument())).technicians).to.deep.equal({ created: 0, updated: 1, unchanged: 1 });
    expect((await em().findOneOrFail(Technician, { dni: '1020304050' })).status).to.equal('ACTIVO');
  });

  it("keeps a technician's live position and rating on later runs", async () => {
    summaryOf(await provision(em(), demoDocument()));
    const e = em();
    const carlos = await e.findOneOrFail(Technician, { dni: '1020304050' });
    await setTechnicianPosition(e, carlos.id, { lat: 4.7, lng: -74.1 });
    await e.getConnection().execute(`update technician set rate = 3.2 where id = ?`, [carlos.id]);

    const summary = summaryOf(await provision(em(), demoDocument()));
    expect(summary.technicians).to.deep.equal({ created: 0, updated: 0, unchanged: 2 });
    const now = await em().findOneOrFail(Technician, { dni: '1020304050' });
    expect([now.lat, now.lng, now.rate]).to.deep.equal([4.7, -74.1, 3.2]);
  });

  it('references rows already in the database, and a technician without types takes its central\'s', async () => {
    summaryOf(await provision(em(), exampleDocument()));
    const summary = summaryOf(
      await provision(em(), {
        technicians: [{ dni: '1040506070', central: '901555111', names: 'Ana Torres' }],
        centrals: [{ nit: '800200300', name: 'Cerrajeros', apiUser: 'aseguradora-demo', serviceTypes: [3], coverage: { center: { lat: 6.2442, lng: -75.5812 }, radiusKm: 15 } }],
      }),
    );
    expect(summary.technicians.created).to.equal(1);
    expect(summary.centrals.created).to.equal(1);
    const ana = await em().findOneOrFail(Technician, { dni: '1040506070' });
    expect(ana.serviceTypes).to.deep.equal([1, 3]);
    expect([ana.lat, ana.lng, ana.rate]).to.deep.equal([null, null, 5]);
  });

  it('an invalid document lists every schema problem with its path and writes nothing', async () => {
    const doc = exampleDocument() as Record<string, unknown> & ReturnType<typeof exampleDocument>;
    (doc.apiUsers![0] as { status: string }).status = 'ACTIVE';
    delete (doc.apiUsers![1] as { businessName?: string }).businessName;
    (doc.operators![0] as { password: string }).password = 'short';
    (doc.gazetteer![0] as { lat: number }).lat = 123;
    doc.users = [];
    const problems = problemsOf(await provision(em(), doc));
    expect(problems).to.include.members([
      "/: must NOT have additional properties ('users')",
      '/apiUsers/0/status: must be equal to one of the allowed values',
      "/apiUsers/1: must have required property 'businessName'",
      '/operators/0/password: must NOT have fewer than 8 characters',
      '/gazetteer/0/lat: must be <= 90',
    ]);
    expect(await rowCounts(em())).to.deep.equal(EMPTY_COUNTS);
  });

  it('a document that is not an object, or oneOf the password fields, is refused with paths', async () => {
    expect(problemsOf(await provision(em(), []))).to.deep.equal(['/: must be object']);
    const doc = exampleDocument();
    doc.apiUsers![0].passwordSha256 = sha256Hex('x');
    expect(problemsOf(await provision(em(), doc))).to.include('/apiUsers/0: must match exactly one schema in oneOf');
    expect(await rowCounts(em())).to.deep.equal(EMPTY_COUNTS);
  });

  it('referential problems found after valid sections are all reported and nothing is written', async () => {
    const doc = demoDocument();
    doc.serviceTypes!.push({ id: 4, type: 'PLOMERIA', required_origin: true, required_destination: false, line: 'HOGAR' });
    doc.centrals![0].apiUser = 'nadie';
    doc.centrals![0].serviceTypes = [1, 99];
    doc.technicians![1].central = '123';
    doc.technicians![1].serviceTypes = [98];
    doc.apiUsers!.push({ ...doc.apiUsers![0] });
    doc.operators!.push({ username: 'ops', password: 'another-password' });
    doc.gazetteer!.push({ address: 'MEDELLIN', lat: 6.2, lng: -75.5 });
    doc.centrals!.push({
      nit: '800900100',
      name: 'Mala geometría',
      serviceTypes: [1],
      coverage: { type: 'Polygon', coordinates: [[[-74, 4], [-74.1, 4.1], [-74, 4.1], [-74.1, 4], [-74, 4]]] },
    });
    const problems = problemsOf(await provision(em(), doc));
    expect(problems).to.deep.equal([
      "/serviceTypes/3/line: no business line with code 'HOGAR'",
      '/apiUsers/2/username: duplicate of /apiUsers/0/username',
      "/centrals/0/serviceTypes/1: no service type with id 99",
      "/centrals/0/apiUser: no API user with username 'nadie'",
      '/centrals/1/coverage: is not a valid Polygon: Self-intersection[-74.05 4.05]',
      '/technicians/1/serviceTypes/0: no service type with id 98',
      "/technicians/1/central: no central with nit '123'",
      '/operators/1/username: duplicate of /operators/0/username',
      '/gazetteer/34/address: duplicate of /gazetteer/2/address',
    ]);
    expect(await rowCounts(em())).to.deep.equal(EMPTY_COUNTS);
  });

  it('a urlApi with a user or password is refused, nothing written (issue 29 item 9)', async () => {
    const user = (username: string, urlApi: string) => ({ username, password: 'x'.repeat(12), status: 'ACTIVO', endpoints: ['*'], businessName: 'Otro', urlApi });
    const before = await em().count(ApiUser);
    const problems = problemsOf(await provision(em(), { apiUsers: [user('otro', 'http://admin:secreto@127.0.0.1:4010'), user('otro-mas', 'http://token@127.0.0.1:4011')] }));
    expect(problems).to.deep.equal(['/apiUsers/0/urlApi: must not carry a user or password', '/apiUsers/1/urlApi: must not carry a user or password']);
    expect(await em().count(ApiUser)).to.equal(before);
  });

  it("an API key still held by a user the document does not name is refused", async () => {
    summaryOf(await provision(em(), exampleDocument()));
    const problems = problemsOf(
      await provision(em(), {
        apiUsers: [{ username: 'otro', password: 'x'.repeat(12), status: 'ACTIVO', endpoints: ['*'], businessName: 'Otro', apiKey: 'ga-demo-key-0123456789abcdef' }],
      }),
    );
    expect(problems).to.deep.equal(["/apiUsers/0/apiKey: already the API key of user 'gruas-andinas'"]);
    expect(await em().count(ApiUser)).to.equal(2);
  });

  it('two runs at once on an empty database: one creates, the other finds everything unchanged', async () => {
    const [a, b] = (await Promise.all([provision(em(), exampleDocument()), provision(em(), exampleDocument())])).map(summaryOf);
    const created = [a, b].map((s) => s.apiUsers.created).sort();
    expect(created).to.deep.equal([0, 2]);
    expect(await em().count(GazetteerEntry)).to.equal(3);
  });
});
