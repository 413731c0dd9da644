/**
 * The one door for every offer move (lifecycle/moves.ts): `planMove` computes
 * a move's effects as data, and the unit-of-work executor (`transition`) and
 * the set-based one (`applyMoves`) write the same rows from them, here for a
 * move that releases a technician (D16), in the same statements for two
 * offers as for three.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Technician, type Central } from '../../src/db/entities/index.js';
import { DomainError } from '../../src/domain/errors.js';
import { applyMoves, planMove, transition, type MoveSubject } from '../../src/domain/offers/lifecycle/moves.js';
import { lockOffer } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { makeCentral, makeOffer, makeTechnician, WITH_STATE_ENDPOINT } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { closingParties, makeGenerator, type Generator } from '../helpers/offers.js';
import { statementsOf } from '../helpers/statements.js';
import { writtenAbout } from '../helpers/written.js';

const AT = new Date('2026-01-02T03:04:05.000Z');
const receiver = { id: 7, urlApi: 'http://generator.test', apiEndpoint: { estado: '/estado', respuesta: '/r' } };
const subject = (o: Partial<MoveSubject> = {}): MoveSubject => ({
  uuid: randomUUID(),
  state: 'ABIERTA',
  generatorId: 7,
  motivo: null,
  codigoServicio: null,
  codigoSolicitud: null,
  technicianId: null,
  ...o,
});
const facts = { generator: receiver, novelties: [], at: AT };

describe('offer moves: one plan, two executors', () => {
  describe('planMove (pure)', () => {
    it("a POST /oferta creation: ABIERTA, its audit row from (none), nothing to notify and no announcement (nobody can follow it yet)", () => {
      const m = planMove(subject({ state: null }), { to: 'ABIERTA', by: 'oferta', actor: 'api-user:g' }, { generator: null, novelties: [], at: AT });
      expect(m).to.deep.include({ from: null, to: 'ABIERTA', technician: null, codes: null, deliveries: [], announcement: null, assignment: null });
      expect(m.audit).to.deep.equal({ offer_uuid: m.uuid, from_state: null, to_state: 'ABIERTA', actor: 'api-user:g', at: AT.toISOString(), tech_lat: null, tech_lng: null, detail: null });
    });

    it('a direct assignment holds its technician and announces its push', () => {
      const s = subject({ state: null, technicianId: 5, codigoServicio: 'SV-AAAAAA', codigoSolicitud: 'SL-AAAAAA' });
      const push = { kind: 'assignment-push' as const, receiverId: 9, url: 'http://central.test/oferta', body: { a: 1 } };
      const m = planMove(s, { to: 'ASIGNADA', by: 'asignacion-directa', actor: 'api-user:g', pushes: [push] }, { generator: null, novelties: [], at: AT });
      expect(m.technician).to.deep.equal({ hold: 5 });
      expect(m.codes, 'it has its codes').to.equal(null);
      expect(m.deliveries.map((d) => [d.kind, d.receiver, d.url])).to.deep.equal([['assignment-push', 9, push.url]]);
      expect(m.announcement).to.deep.equal({ offer: { uuid: s.uuid, generatorId: 7 }, result: { from: null, to: 'ASIGNADA', notificationIds: [m.deliveries[0].id] } });
    });

    it('reaching ASIGNADA needs the codes reserved (D6); the notice carries the service code (D16)', () => {
      const s = subject({ state: 'ACEPTADA', technicianId: 3 });
      const input = { to: 'ASIGNADA' as const, by: 'asignacion' as const, actor: 'api-user:g' };
      expect(() => planMove(s, input, facts)).to.throw(/codes reserved/);
      const m = planMove(s, input, { ...facts, codes: { codigoServicio: 'SV-BBBBBB', codigoSolicitud: 'SL-BBBBBB' } });
      expect(m.codes).to.deep.equal({ codigoServicio: 'SV-BBBBBB', codigoSolicitud: 'SL-BBBBBB' });
      expect(m.technician).to.deep.equal({ hold: 3 });
      expect(m.deliveries.map((d) => (d.requestBody as { codigoServicio?: string }).codigoServicio)).to.deep.equal(['SV-BBBBBB']);
    });

    it('the end of an active service releases its technician; the end of an offer never assigned does not (D16)', () => {
      expect(planMove(subject({ state: 'EN_CAMINO', technicianId: 3, codigoServicio: 'SV-C', codigoSolicitud: 'SL-C' }), { to: 'FINALIZADA', by: 'finalize', actor: 'x' }, facts).technician).to.deep.equal({ release: true });
      expect(planMove(subject({ state: 'ABIERTA' }), { to: 'NO_ASIGNADA', by: 'no-asignacion', actor: 'x' }, facts).technician).to.equal(null);
      expect(planMove(subject({ state: 'SIN_RESPUESTA' }), { to: 'EXPIRADA', by: 'expiracion', actor: 'x' }, facts).technician).to.equal(null);
    });

    it('a move the table does not allow is refused (D1)', () => {
      const err = (() => {
        try {
          planMove(subject({ state: 'FINALIZADA' }), { to: 'CANCELADA', by: 'cancelacion', actor: 'x' }, facts);
        } catch (e) {
          return e;
        }
      })();
      expect(err).to.be.instanceOf(DomainError);
      expect((err as DomainError).code).to.equal('offer.move-refused');
    });
  });

  describe('the two executors', () => {
    let app: TestApp;
    let gen: Generator;
    const fork = () => app.rt.orm.em.fork();

    before(async () => {
      app = await startApp();
      await closingParties(app);
      gen = await makeGenerator(fork(), WITH_STATE_ENDPOINT);
    });
    after(async () => app.close());

    /** A service ASIGNADA to a central without a profile, its technician busy with it. */
    async function assigned(party?: { central: Central; technician: Technician }): Promise<{ uuid: string; technicianId: number }> {
      const em = fork();
      const central = party?.central ?? (await makeCentral(em));
      const technician = party?.technician ?? (await makeTechnician(em, central));
      const code = randomUUID().slice(0, 6).toUpperCase();
      const offer = await makeOffer(em, gen.user, {
        state: 'ASIGNADA',
        assignedCentral: central,
        assignedTechnician: technician,
        codigoServicio: `SV-${code}`,
        codigoSolicitud: `SL-${code}`,
      });
      await em.nativeUpdate(Technician, { id: technician.id }, { busyOfferUuid: offer.uuid });
      return { uuid: offer.uuid, technicianId: technician.id };
    }

    const busyWith = async (technicianId: number) => (await fork().findOneOrFail(Technician, technicianId)).busyOfferUuid;
    const input = { to: 'CANCELADA' as const, by: 'cancelacion' as const, actor: 'api-user:test' };

    /** The set-based executor on these offers, its facts read as a batch would (the generator; no novelty: no central profile). */
    const applyBatch = (uuids: readonly string[]) =>
      fork().transactional(async (em) => {
        const moves = [];
        for (const uuid of uuids) {
          const offer = (await lockOffer(em, uuid))!;
          const s: MoveSubject = {
            uuid,
            state: offer.state,
            generatorId: gen.user.id,
            motivo: null,
            codigoServicio: offer.codigoServicio ?? null,
            codigoSolicitud: offer.codigoSolicitud ?? null,
            technicianId: offer.assignedTechnician?.id ?? null,
          };
          moves.push(planMove(s, input, { generator: gen.user, novelties: [], at: new Date() }));
        }
        await applyMoves(em, moves);
      });

    it('write the same rows and release the same technician', async () => {
      const central = await makeCentral(fork());
      const party = { central, technician: await makeTechnician(fork(), central) };
      const viaEntities = await assigned(party);
      await fork().transactional(async (em) => transition(em, (await lockOffer(em, viaEntities.uuid))!, input));
      expect(await busyWith(party.technician.id)).to.equal(null);
      const viaBatch = await assigned(party);
      await applyBatch([viaBatch.uuid]);
      expect(await busyWith(party.technician.id)).to.equal(null);

      // each offer has its own codes (unique, D6): named by role
      const written = async (uuid: string) => {
        const w = await writtenAbout(app, uuid);
        const code = (w.offer as { codigo_servicio: string }).codigo_servicio;
        return JSON.parse(JSON.stringify(w).replaceAll(code, 'ITS CODE')) as unknown;
      };
      const b = (await written(viaBatch.uuid)) as { deliveries: Array<{ kind: string; request_body: Record<string, unknown> }> };
      expect(b).to.deep.equal(await written(viaEntities.uuid));
      expect(b.deliveries.map((d) => [d.kind, d.request_body.codigoServicio]), 'the generator is told, with the code (D12, D16)').to.deep.equal([['state', 'ITS CODE']]);
    });

    it('set-based: the same statements for two offers as for three', async () => {
      const two = [await assigned(), await assigned()];
      const three = [await assigned(), await assigned(), await assigned()];
      const count = async (batch: Array<{ uuid: string }>) => (await statementsOf(() => applyBatch(batch.map((o) => o.uuid)))).filter((q) => !/for update/i.test(q)).length;
      expect(await count(three)).to.equal(await count(two));
      for (const o of [...two, ...three]) expect(await busyWith(o.technicianId), o.uuid).to.equal(null);
    });
  });
});
