import { expect } from 'chai';
import { OFFER_STATES } from '../../src/domain/offers/lifecycle/states.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

type Row = Record<string, unknown>;

describe('POST /queries/history and GET /queries/history-options (D7)', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;
  const day = (iso: string) => new Date(iso);

  before(async () => {
    const suite = await startOps({ provider: { name: 'Grúas Norte' } });
    ({ app, gen, other, prov } = suite);
    const { em } = suite;
    // 60 of the caller's GRUA (line VEH) offers over two local days, newest last.
    for (let i = 0; i < 60; i++) {
      const createdAt = new Date(day('2026-11-10T05:00:00Z').getTime() + i * 30 * 60_000); // from 00:00 local, every 30 min
      await offerIn(em, gen, i % 3 === 0 ? 'FINALIZADA' : 'ABIERTA', i % 3 === 0 ? prov : undefined, {
        createdAt,
        internal: 1000 + i,
        global: i === 5 ? 555 : null,
        codigoServicio: i % 3 === 0 ? `SV-TEST${String(i).padStart(2, '0')}` : null,
      });
    }
    await offerIn(em, gen, 'ABIERTA', undefined, { serviceType: 2 as never, createdAt: day('2026-11-10T12:00:00Z') });
    await offerIn(em, other, 'ABIERTA', undefined, { createdAt: day('2026-11-10T12:00:00Z'), internal: 1001 });
  });
  after(async () => app.close());

  const history = (json: unknown, auth = gen.auth) => app.client.post('api/v3/queries/history', { headers: { authorization: auth }, json });
  const rows = (res: { body: unknown }) => bodyOf(res).data as Row[];

  it('answers 400 La línea de negocio es requerida. without line', async () => {
    const res = await history({ autNumber: '1' });
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg: 'La línea de negocio es requerida.' });
  });

  it("lists only the caller's services of that line, newest first, 50 per page by default, with pagination", async () => {
    const res = await history({ line: 'VEH' });
    expect(res.statusCode).to.equal(200);
    const body = bodyOf(res);
    expect(body).to.include({ status: true, msg: 'Datos obtenidos correctamente' });
    expect(body.pagination).to.deep.equal({ page: 1, pageSize: 50, total: 60 });
    const data = rows(res);
    expect(data).to.have.length(50);
    expect(data[0]).to.include({ internal: 1059, estado: 'ABIERTA', prestador: null, tipoServicio: 'GRUA', codigoServicio: null });
    expect(data[2]).to.include({ internal: 1057, estado: 'FINALIZADA', prestador: 'Grúas Norte', codigoServicio: 'SV-TEST57' });
    expect(data[0]).to.have.keys('idServicio', 'estado', 'prestador', 'nitPrestador', 'tipoServicio', 'codigoServicio', 'codigoSolicitud', 'internal', 'global', 'fecha', 'fechaActualizacion');
    const page2 = await history({ line: 'VEH', page: 2, pageSize: 50 });
    expect(rows(page2).map((r) => r.internal)).to.deep.equal([1009, 1008, 1007, 1006, 1005, 1004, 1003, 1002, 1001, 1000]);
    const mov = await history({ line: 'MOV' });
    expect(rows(mov)).to.have.length(1);
    expect(rows(mov)[0]).to.include({ tipoServicio: 'CONDUCTOR ELEGIDO' });
  });

  it('filters by autNumber (uuid, internal or global), by state and by local dates', async () => {
    const all = rows(await history({ line: 'VEH', pageSize: 500 }));
    const target = all.find((r) => r.internal === 1042) as Row;
    expect(rows(await history({ line: 'VEH', autNumber: target.idServicio }))).to.deep.equal([target]);
    expect(rows(await history({ line: 'VEH', autNumber: 1042 })).map((r) => r.idServicio)).to.deep.equal([target.idServicio]);
    expect(rows(await history({ line: 'VEH', autNumber: '555' })).map((r) => r.internal)).to.deep.equal([1005]);
    expect(rows(await history({ line: 'VEH', autNumber: 'no-such-thing' }))).to.deep.equal([]);
    const finished = await history({ line: 'VEH', estado: 'FINALIZADA', pageSize: 500 });
    expect(bodyOf(finished).pagination).to.deep.include({ total: 20 });
    expect(rows(finished).every((r) => r.estado === 'FINALIZADA')).to.equal(true);
    // 2026-11-11 local (UTC−05:00) starts at 05:00Z: offers 48..59.
    const second = await history({ line: 'VEH', desde: '2026-11-11', hasta: '2026-11-11' });
    expect(rows(second).map((r) => r.internal)).to.deep.equal([...Array(12).keys()].map((i) => 1059 - i));
    const first = await history({ line: 'VEH', hasta: '2026-11-10', pageSize: 500 });
    expect(bodyOf(first).pagination).to.deep.include({ total: 48 });
    const instants = await history({ line: 'VEH', desde: '2026-11-10T05:00:00Z', hasta: '2026-11-10T06:00:00Z' });
    expect(rows(instants).map((r) => r.internal)).to.deep.equal([1002, 1001, 1000]);
  });

  it('answers 400 for an unknown line, a bad state, date or page size', async () => {
    const cases: Array<[Row, string]> = [
      [{ line: 'XYZ' }, 'La línea de negocio no existe.'],
      [{ line: 'VEH', estado: 'PERDIDA' }, 'El estado no es válido; los estados están en GET /queries/history-options.'],
      [{ line: 'VEH', desde: '10/11/2026' }, 'La fecha desde debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.'],
      // A leap second is a valid RFC 3339 date-time that no Date holds (issue 29 item 9): refused, never a 500.
      [{ line: 'VEH', desde: '2016-12-31T23:59:60Z' }, 'La fecha desde debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.'],
      [{ line: 'VEH', hasta: '2016-12-31T23:59:60.5-05:00' }, 'La fecha hasta debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.'],
      [{ line: 'VEH', pageSize: 501 }, 'El tamaño de página debe ser un entero entre 1 y 500.'],
      [{ line: 'VEH', page: 0 }, 'La página debe ser un entero entre 1 y 1000000.'],
      [{ line: 'VEH', page: 1e18 }, 'La página debe ser un entero entre 1 y 1000000.'],
    ];
    for (const [json, msg] of cases) {
      const res = await history(json);
      expect(res.statusCode, msg).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg });
    }
  });

  it('GET /queries/history-options lists task states, the D1 states and the centrals', async () => {
    const res = await app.client.get('api/v3/queries/history-options', { headers: { authorization: gen.auth } });
    expect(res.statusCode).to.equal(200);
    const body = bodyOf(res);
    expect(body.status).to.equal(true);
    const data = body.data as { taskStatus: Row[]; serviceStatus: Row[]; businessNits: Row[] };
    expect(data.serviceStatus.map((s) => s.id)).to.deep.equal([...OFFER_STATES]);
    expect(data.serviceStatus[0]).to.have.keys('id', 'name');
    expect(data.taskStatus.map((s) => s.id)).to.deep.equal(['ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'CANCELADA']);
    expect(data.businessNits).to.deep.equal([{ nit: prov.central.nit, name: 'Grúas Norte' }]);
  });
});
