/**
 * The two forms of closing a window write the same rows (issue 12, item 3):
 * the batch form (closing.ts: plain reads, set-based writes, what the
 * evaluation runs) and the unit-of-work form every other move goes through
 * (`selectResponse` and `transition` on entities). Identical offers closed
 * each way: their offer rows, audit rows and planned deliveries are equal
 * once the values that must differ (uuids, ids, times) are named by role.
 */
import { expect } from 'chai';
import { Offer, OfferResponse } from '../../src/db/entities/index.js';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { rankResponses } from '../../src/domain/offers/selection/ranking.js';
import { selectResponse } from '../../src/domain/offers/selection/selection.js';
import { lockOffer } from '../../src/domain/offers/lifecycle/stateMachine.js';
import { transition } from '../../src/domain/offers/lifecycle/moves.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { answeredOffer, closingParties, makeDue, type Generator, type Responder } from '../helpers/offers.js';
import { writtenAbout } from '../helpers/written.js';

type Row = Record<string, unknown>;

describe('closing a window: the batch form writes what the unit-of-work form writes', () => {
  let app: TestApp;
  let gen: Generator;
  let fast: Responder;
  let slow: Responder;
  const fork = () => app.rt.orm.em.fork();
  const sql = <T = Row>(q: string, params: unknown[] = []) => fork().getConnection().execute<T[]>(q, params);

  /** Who answers each offer of a scenario, with their arrival times. */
  const SCENARIO: Array<Array<[() => Responder, number]>> = [
    [[() => fast, 8], [() => slow, 15]], // the fast one wins; the slow one's central is told it lost (novedad)
    [[() => slow, 6], [() => fast, 6]], // a tie on time: the better rate (fast's) wins (D2)
    [[() => slow, 12]], // a single answer, from the central with a novelty endpoint
    [], // no answer: SIN_RESPUESTA, the generator told (D12)
  ];

  async function scenario(): Promise<string[]> {
    const uuids: string[] = [];
    for (const answers of SCENARIO) uuids.push(await answeredOffer(app, gen, answers.map(([who, minutes]) => [who(), minutes] as const)));
    return uuids;
  }

  /** Closes a window through entities, as `transition` and `selectResponse` do for every other move. */
  async function closeThroughEntities(uuid: string): Promise<void> {
    await fork().transactional(async (em) => {
      const offer = (await lockOffer(em, uuid))!;
      const responses = await em.find(OfferResponse, { offer: uuid }, { populate: ['central.apiUser', 'technician'] });
      const move = { by: 'evaluacion', actor: 'system:evaluation' } as const;
      if (!responses.length) return transition(em, offer, { ...move, to: 'SIN_RESPUESTA' });
      const ranked = rankResponses(responses);
      return selectResponse(em, app.rt.config, offer, ranked[0], ranked, { ...move, to: 'ACEPTADA' });
    });
  }

  before(async () => {
    app = await startApp();
    ({ gen, fast, slow } = await closingParties(app));
  });
  after(async () => app.close());

  it('offers, audit rows and deliveries are equal for a selection, a tie, a single answer and no answer', async () => {
    const throughEntities = await scenario();
    for (const uuid of throughEntities) await closeThroughEntities(uuid);

    const batched = await scenario();
    await makeDue(app, batched);
    expect(await evaluateOffer(app.rt, batched[0])).to.equal('selected');

    const states: string[] = [];
    for (let i = 0; i < SCENARIO.length; i++) {
      const [viaEntities, viaBatch] = [await writtenAbout(app, throughEntities[i]), await writtenAbout(app, batched[i])];
      expect(viaBatch, `offer ${i}`).to.deep.equal(viaEntities);
      states.push((await fork().findOneOrFail(Offer, { uuid: batched[i] })).state);
    }
    expect(states).to.deep.equal(['ACEPTADA', 'ACEPTADA', 'ACEPTADA', 'SIN_RESPUESTA']);
    // the comparison saw what each case must write: a novelty to the losing central, none for a lone answer
    const kinds = async (uuid: string) => (await sql<{ kind: string }>(`select kind from webhook_delivery where offer_uuid = ? order by seq`, [uuid])).map((d) => d.kind);
    expect(await kinds(batched[0])).to.deep.equal(['acceptance', 'novedad']);
    expect(await kinds(batched[2])).to.deep.equal(['acceptance']);
    expect(await kinds(batched[3])).to.deep.equal(['state']);
  });
});
