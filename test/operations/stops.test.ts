import { expect } from 'chai';
import { GazetteerEntry, Offer } from '../../src/db/entities/index.js';
import { addressKey } from '../../src/geocoding/index.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';

describe('POST /add-address (D6)', () => {
  let app: TestApp;
  let gen: Generator;
  let other: Generator;
  let prov: Provider;

  before(async () => {
    const suite = await startOps({ env: { MAX_STOPS: '3' } });
    ({ app, gen, other, prov } = suite);
    const { em } = suite;
    em.create(GazetteerEntry, {
      address: 'Calle 100 # 15-20, Bogotá',
      addressKey: addressKey('Calle 100 # 15-20, Bogotá'),
      lat: 4.6847,
      lng: -74.0469,
      ciudad: 'Bogotá',
      departamento: 'Cundinamarca',
    });
    await em.flush();
  });
  after(async () => app.close());

  const add = (json: unknown, auth = gen.auth) => app.client.post('api/v3/add-address', { headers: { authorization: auth }, json });

  it('appends a stop by coordinates and one by a geocoded address; 0 coordinates count as missing', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const a = await add({ uuid: offer.uuid, latitud: 4.61, longitud: '-74.07', puntoReferencia: 'Portería norte' });
    expect(a.statusCode).to.equal(200);
    expect(bodyOf(a)).to.include({ status: true, msg: 'SE HA AGREGADO EXITOSAMENTE LA DIRECCIÓN AL SERVICIO' });
    const b = await add({ uuid: offer.uuid, direccion: 'calle 100 # 15-20, bogota', latitud: 0, longitud: 0 });
    expect(b.statusCode).to.equal(200);
    const stops = (bodyOf(b).data as { stops: Array<Record<string, unknown>> }).stops;
    expect(stops).to.have.length(2);
    expect(stops[0]).to.include({ latitud: 4.61, longitud: -74.07, puntoReferencia: 'Portería norte', direccion: null });
    expect(stops[1]).to.include({ latitud: 4.6847, longitud: -74.0469, ciudad: 'Bogotá', departamento: 'Cundinamarca' });
    const stored = await app.rt.orm.em.fork().findOneOrFail(Offer, offer.uuid);
    expect(stored.stops).to.deep.equal(stops);
  });

  it('takes stops in every state before the end (ABIERTA, ACEPTADA, EN_SITIO)', async () => {
    for (const state of ['ABIERTA', 'ACEPTADA', 'EN_SITIO'] as const) {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
      const res = await add({ uuid: offer.uuid, latitud: 4.6, longitud: -74.1 });
      expect(res.statusCode, state).to.equal(200);
    }
  });

  for (const state of ['FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA', 'EXPIRADA'] as const) {
    it(`refuses a service in ${state} with 403 naming the state`, async () => {
      const offer = await offerIn(app.rt.orm.em.fork(), gen, state, prov);
      const res = await add({ uuid: offer.uuid, latitud: 4.6, longitud: -74.1 });
      expect(res.statusCode).to.equal(403);
      expect(res.body).to.deep.equal({
        status: false,
        msg: `NO ES POSIBLE AGREGAR DIRECCIONES: EL SERVICIO ESTÁ EN ESTADO ${state}`,
        data: { estado: state },
      });
    });
  }

  it('refuses a stop beyond MAX_STOPS with 400', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    for (let i = 0; i < 3; i++) expect((await add({ uuid: offer.uuid, latitud: 4.6 + i / 100, longitud: -74.1 })).statusCode).to.equal(200);
    const res = await add({ uuid: offer.uuid, latitud: 4.7, longitud: -74.1 });
    expect(res.statusCode).to.equal(400);
    expect(res.body).to.deep.equal({ status: false, msg: 'EL SERVICIO YA TIENE EL MÁXIMO DE 3 PARADAS PERMITIDAS' });
  });

  it('answers 400 without a place, for an address it cannot identify, for bad coordinates and without uuid', async () => {
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ASIGNADA', prov);
    const cases: Array<[unknown, string]> = [
      [{ uuid: offer.uuid }, 'ES NECESARIO LA DIRECCIÓN O LAS COORDENADAS DE LA PARADA'],
      [{ uuid: offer.uuid, direccion: '  ', latitud: '', longitud: '' }, 'ES NECESARIO LA DIRECCIÓN O LAS COORDENADAS DE LA PARADA'],
      [{ uuid: offer.uuid, direccion: 'Calle que no existe 123' }, 'LA DIRECCIÓN DE LA PARADA NO FUE POSIBLE IDENTIFICARLA, POR FAVOR VERIFICA LOS DATOS'],
      [{ uuid: offer.uuid, latitud: 'x', longitud: -74 }, 'LAS COORDENADAS DE LA PARADA NO SON VÁLIDAS'],
      // read as on POST /oferta and PUT /aceptacion: plain decimals only
      [{ uuid: offer.uuid, latitud: '0x4', longitud: '-74' }, 'LAS COORDENADAS DE LA PARADA NO SON VÁLIDAS'],
      [{ uuid: offer.uuid, latitud: '4e0', longitud: '-74' }, 'LAS COORDENADAS DE LA PARADA NO SON VÁLIDAS'],
      [{ latitud: 4.6, longitud: -74.1 }, "NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA AGREGAR LA DIRECCIÓN"],
      [{ uuid: offer.uuid, direccion: 42 }, "EL CAMPO 'direccion' NO ES VÁLIDO"],
    ];
    for (const [json, msg] of cases) {
      const res = await add(json);
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg });
    }
  });

  it("answers 404 for another generator's offer and for an unknown one", async () => {
    const theirs = await offerIn(app.rt.orm.em.fork(), other, 'ASIGNADA', prov);
    for (const uuid of [theirs.uuid, 'f3a2b1c0-d9e8-4f7a-8b6c-5d4e3f2a1b0c']) {
      const res = await add({ uuid, latitud: 4.6, longitud: -74.1 });
      expect(res.statusCode).to.equal(404);
      expect(res.body).to.deep.equal({ status: false, msg: 'OFERTA NO ENCONTRADA' });
    }
  });
});
