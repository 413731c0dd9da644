import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { GazetteerEntry, Offer, OfferTransition } from '../../src/db/entities/index.js';
import { CODE_PATTERN } from '../../src/domain/offers/lifecycle/codes.js';
import { OFFER_MESSAGES } from '../../src/api/offers/createOffer.js';
import { addressKey } from '../../src/geocoding/index.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { makeCentral } from '../helpers/factories.js';

describe('POST /asignacion-directa (D6)', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;

  before(async () => {
    const suite = await startOps({ generator: { businessName: 'Aseguradora Uno' }, provider: { name: 'Grúas Norte' } });
    ({ app, gen, other, prov } = suite);
    const { em } = suite;
    for (const [address, lat, lng, ciudad] of [
      ['Calle 100 # 15-20, Bogotá', 4.6847, -74.0469, 'Bogotá'],
      ['Medellín', 6.2442, -75.5812, 'Medellín'],
    ] as const) {
      em.create(GazetteerEntry, { address, addressKey: addressKey(address), lat, lng, ciudad, departamento: 'X' });
    }
    await em.flush();
  });
  after(async () => app.close());

  const direct = (json: Record<string, unknown>, auth = gen.auth) =>
    app.client.post('api/v3/asignacion-directa', { headers: { authorization: auth }, json });
  const base = () => ({ uuid: randomUUID(), tipoServicio: '1', dniPrestador: prov.central.nit, latitudOrigen: 4.65, longitudOrigen: -74.08 });

  it('creates the service already ASIGNADA to the central, with short unique codes and no window', async () => {
    const body = { ...base(), dniTecnico: prov.technician.dni, fechaCita: '2026-12-01', horaCita: '14:30', internal: 7781 };
    const res = await direct(body);
    expect(res.statusCode).to.equal(200);
    const b = bodyOf(res);
    expect(b).to.include({ status: true, msg: 'SE HA REGISTRADO EXITOSAMENTE LA ASIGNACIÓN DIRECTA DEL SERVICIO A LA CENTRAL Grúas Norte' });
    expect(b.codigoServicio).to.match(CODE_PATTERN).and.match(/^SV-/);
    expect(b.codigoSolicitud).to.match(CODE_PATTERN).and.match(/^SL-/);
    const offer = await app.rt.orm.em.fork().findOneOrFail(Offer, body.uuid);
    expect(offer).to.include({ state: 'ASIGNADA', deadlineAt: null, expiresAt: null, codigoServicio: b.codigoServicio, internal: 7781 });
    expect(offer.assignedCentral?.id).to.equal(prov.central.id);
    expect(offer.assignedTechnician?.id).to.equal(prov.technician.id);
    expect(offer.scheduledAt.toISOString()).to.equal('2026-12-01T19:30:00.000Z');
    expect(offer).to.include({ descripcionServicio: 'GRUA', ofertante: 'Aseguradora Uno', priority: false });
    const audit = await app.rt.orm.em.fork().find(OfferTransition, { offer: body.uuid });
    expect(audit.map((t) => [t.fromState, t.toState])).to.deep.equal([[null, 'ASIGNADA']]);
  });

  it('gives every service different codes', async () => {
    const codes = new Set<unknown>();
    for (let i = 0; i < 5; i++) {
      const b = bodyOf(await direct(base()));
      codes.add(b.codigoServicio);
      codes.add(b.codigoSolicitud);
    }
    expect(codes.size).to.equal(10);
  });

  it('geocodes the origin and destination addresses, keeps the 2.1 fields (vehicle legend, guardian, sub-offerer)', async () => {
    const body = {
      uuid: randomUUID(),
      tipoServicio: '1,2',
      dniPrestador: prov.central.nit,
      latitudOrigen: 0,
      longitudOrigen: '',
      direccionOrigen: 'Calle 100 # 15-20, Bogotá',
      direccionDestino: 'Medellín',
      vehiculo: { marca: 'Renault', modelo: '2019', blindaje: '' },
      observaciones: 'Llanta pinchada',
      guardian: 'SI',
      subOfertante: 'Sucursal Norte',
      fechaCita: '',
    };
    expect((await direct(body)).statusCode).to.equal(200);
    const offer = await app.rt.orm.em.fork().findOneOrFail(Offer, body.uuid);
    expect(offer).to.include({ originLat: 4.6847, originLng: -74.0469, ciudad: 'Bogotá', destLat: 6.2442, destLng: -75.5812 });
    expect(offer.serviceType.id).to.equal(1);
    expect(offer.observaciones).to.equal('VEHÍCULO: Marca: Renault, Modelo: 2019 | Llanta pinchada');
    expect(offer.vehiculo).to.deep.equal({ marca: 'Renault', modelo: '2019' });
    expect(offer).to.include({ priority: true, ofertante: 'Aseguradora Uno - Sucursal Norte' });
  });

  it("refuses a uuid already offered (the caller's or another generator's) with 400 EL SERVICIO YA FUE OFERTADO", async () => {
    const first = base();
    expect((await direct(first)).statusCode).to.equal(200);
    for (const auth of [gen.auth, other.auth]) {
      const res = await direct({ ...base(), uuid: first.uuid }, auth);
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: 'EL SERVICIO YA FUE OFERTADO' });
    }
  });

  it('creates exactly one service for concurrent requests with the same uuid', async () => {
    const body = base();
    const answers = await Promise.all([direct(body), direct(body), direct(body)]);
    expect(answers.map((r) => r.statusCode).sort()).to.deep.equal([200, 400, 400]);
    expect(await app.rt.orm.em.fork().count(OfferTransition, { offer: body.uuid })).to.equal(1);
  });

  it('answers 404 for an unknown central or technician, 400 for a type the central does not serve or that does not exist', async () => {
    const em = app.rt.orm.em.fork();
    const onlyType2 = await makeCentral(em, { name: 'Conductores', serviceTypes: [2] });
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ dniPrestador: '000000' }, 404, 'NO SE ENCONTRÓ LA CENTRAL (PRESTADOR) CON NIT 000000'],
      [{ dniTecnico: '999999' }, 404, 'NO SE ENCONTRÓ EL TÉCNICO'],
      [{ dniPrestador: onlyType2.nit }, 400, 'LA CENTRAL Conductores NO PRESTA EL SERVICIO GRUA'],
      [{ tipoServicio: '77' }, 400, OFFER_MESSAGES.typeUnknown(77)],
      [{ tipoServicio: 'grua' }, 400, OFFER_MESSAGES.typeInvalid],
    ];
    for (const [over, status, msg] of cases) {
      const res = await direct({ ...base(), ...over });
      expect(res.statusCode).to.equal(status);
      expect(res.body).to.deep.equal({ status: false, msg });
    }
  });

  it('answers the validation messages of POST /oferta (spec 4.1), and its own for dniPrestador', async () => {
    const { uuid: _u, ...noUuid } = base();
    const { tipoServicio: _t, ...noType } = base();
    const { dniPrestador: _d, ...noCentral } = base();
    const cases: Array<[Record<string, unknown>, string]> = [
      [noUuid, OFFER_MESSAGES.uuidMissing],
      [{ ...base(), uuid: 'abc' }, OFFER_MESSAGES.uuidInvalid],
      [noType, OFFER_MESSAGES.typeMissing],
      [noCentral, "EL CAMPO 'dniPrestador' ES REQUERIDO PARA REALIZAR LA ASIGNACIÓN DIRECTA"],
      [{ ...base(), dniPrestador: '' }, "EL CAMPO 'dniPrestador' NO ES VÁLIDO"],
      [{ ...base(), dniTecnico: 7 }, "EL CAMPO 'dniTecnico' NO ES VÁLIDO"],
      [{ ...base(), latitudOrigen: 0, longitudOrigen: 0 }, OFFER_MESSAGES.originMissing],
      [{ ...base(), latitudOrigen: 91 }, OFFER_MESSAGES.outOfRange('latitudOrigen', 'lat')],
      [{ ...base(), latitudOrigen: null, direccionOrigen: 'Vereda desconocida' }, OFFER_MESSAGES.originNotFound],
      [{ ...base(), direccionDestino: 'Destino inexistente' }, OFFER_MESSAGES.destinationNotFound],
      [{ ...base(), fechaCita: '01/12/2026' }, OFFER_MESSAGES.badDate],
      [{ ...base(), horaCita: '25:00' }, OFFER_MESSAGES.badTime],
      [{ ...base(), observaciones: 'x'.repeat(5001) }, OFFER_MESSAGES.tooLong('observaciones', 5000)],
    ];
    for (const [json, msg] of cases) {
      const res = await direct(json);
      expect(res.statusCode, msg).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg });
    }
  });
});
