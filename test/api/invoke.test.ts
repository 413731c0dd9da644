/**
 * The transport-neutral contract (issue 27 item 1): the socket invokes the
 * operations of src/api by operationId and gets the HTTP answer; the socket
 * frames are the operations' input schemas less the identity fields.
 */
import { expect } from 'chai';
import { SocketOfferRespond, SocketPosition } from '../../src/api/document/socket.js';
import { invoke } from '../../src/api/invoke.js';
import { AUTH_MESSAGES } from '../../src/auth/credentials.js';
import { ACCEPTANCE_MESSAGES, AcceptanceInput } from '../../src/api/offers/acceptOffer.js';
import { OPERATIONS, operationById } from '../../src/api/operations.js';
import { PositionInput } from '../../src/api/service/position.js';
import type { Runtime } from '../../src/domain/ports.js';

/** Enough of a runtime for answers that never reach the domain. */
const rt = { log: { error() {} } } as unknown as Runtime;

describe('src/api: one declaration for both transports (issue 27)', () => {
  it('the socket frames are the operations’ input schemas without the identity fields (the same objects, not copies)', () => {
    const respond = SocketOfferRespond.schema.properties as Record<string, unknown>;
    const body = AcceptanceInput.schema.properties as Record<string, unknown>;
    expect(Object.keys(respond)).to.deep.equal(Object.keys(body).filter((k) => k !== 'dniPrestador' && k !== 'dniTecnico'));
    for (const k of Object.keys(respond)) expect(respond[k], k).to.equal(body[k]);
    expect(SocketOfferRespond.schema.required).to.deep.equal(['id']);
    const position = SocketPosition.schema.properties as Record<string, unknown>;
    expect(Object.keys(position)).to.deep.equal(['latitud', 'longitud', 'disponible']);
    for (const k of Object.keys(position)) expect(position[k], k).to.equal((PositionInput.schema.properties as Record<string, unknown>)[k]);
  });

  it('invoke validates with the operation’s schema and answers its wording in its envelope (D19 checks first)', async () => {
    const id = '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f';
    expect(await invoke(rt, 'acceptOffer', {}, { id, dniPrestador: '1', dniTecnico: '2', tiempoLlegadaSitio: 1441 })).to.deep.equal({
      status: 400,
      body: { status: false, data: ACCEPTANCE_MESSAGES.badTime },
    });
    expect(await invoke(rt, 'acceptOffer', {}, undefined)).to.deep.equal({ status: 400, body: { status: false, data: ACCEPTANCE_MESSAGES.required('id') } });
    const nul = await invoke(rt, 'acceptOffer', {}, { id, dniPrestador: '1\u0000', dniTecnico: '2' });
    expect(nul.status).to.equal(400);
    expect(nul.body).to.have.property('status', false);
  });

  it('invoke refuses, before anything else, a caller whose profile lacks the operation’s endpoint: HTTP’s own 403 (D24)', async () => {
    const central = { id: 1, endpoints: ['/aceptacion'] } as never;
    const res = await invoke(rt, 'updateTechnicianPosition', { apiUser: central }, { dniTecnico: '1', latitud: 'not even valid' });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ status: false, msg: AUTH_MESSAGES.keyForbidden, requestedEndpoint: '/posicion-tecnico' });
    expect((res.body as { allowedEndpoints: string[] }).allowedEndpoints).to.deep.equal(['/aceptacion']);
    const generator = { id: 2, endpoints: ['/oferta'] } as never;
    const basic = await invoke(rt, 'getOfferResponses', { apiUser: generator }, {});
    expect(basic.status).to.equal(403);
    expect(basic.body).to.include({ error: true, message: AUTH_MESSAGES.basicForbidden });
  });

  it('an unexpected failure is the operation’s own 500 text in its envelope', async () => {
    const broken = { log: { error() {} }, orm: null } as unknown as Runtime;
    const res = await invoke(broken, 'acceptOffer', { apiUser: { id: 1, endpoints: ['*'] } as never }, { id: '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f', dniPrestador: '1', dniTecnico: '2' });
    expect(res).to.deep.equal({ status: 500, body: { status: false, data: ACCEPTANCE_MESSAGES.failure } });
  });

  it('only the operations that need request facts (cookies, pages, forms, files) have no transport-neutral handler', () => {
    const koaShaped = OPERATIONS.filter((op) => !op.handle).map((op) => op.operationId);
    expect(koaShaped.sort()).to.deep.equal(
      [
        'login',
        'adminLoginPage',
        'adminLogin',
        'adminQueues',
        'health',
        'healthLive',
        'healthReady',
        'openApiDocument',
        'asyncApiDocument',
        'docsPage',
        'docsAsset',
        'trackingPage',
        'trackingPageCode',
        'trackingPageVerify',
        'trackingPagePart',
        'trackingPageMessage',
        'trackingPageSurvey',
        'trackingPageLogout',
        'trackingPageScript',
        'trackingSharedPage',
        'consoleHome',
        'consoleOffer',
        'consoleResend',
        // D23: the console's work queue fragment and script, the pages' map modules (files), the logout (a cookie)
        'consoleQueue',
        'consoleScript',
        'pageAsset',
        'adminLogout',
        'metrics',
      ].sort(),
    );
    expect(() => operationById('noSuchOperation')).to.throw('no operation noSuchOperation');
  });
});
