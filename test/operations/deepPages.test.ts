/**
 * Issue 29.9 (decisions LIM-6): a deep page (`page=999999`) of a paged list is
 * refused with a clear 400 in the route's envelope before any query runs: no
 * unbounded OFFSET, no count. Pages up to MAX_LIST_DEPTH rows still answer.
 */
import { expect } from 'chai';
import { pageTooDeep } from '../../src/api/document/responses.js';
import { MAX_LIST_DEPTH } from '../../src/limits.js';
import type { TestApp } from '../helpers/harness.js';
import { startOps, type Generator, type Provider } from '../helpers/ops.js';
import { statementsOf } from '../helpers/statements.js';

/** Statements that read a list's page or count it. */
const listReads = (sql: string[]) => sql.filter((s) => /\boffset\b|count\(/i.test(s));

describe('deep pages are refused before any query (issue 29.9)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  before(async () => {
    ({ app, gen, prov } = await startOps());
  });
  after(async () => app.close());

  it('POST /queries/history: page × pageSize beyond the bound answers 400 naming the deepest page, with no statement run', async () => {
    const history = (json: unknown) => app.client.post('api/v3/queries/history', { headers: { authorization: gen.auth }, json });
    expect((await history({ line: 'VEH', page: MAX_LIST_DEPTH / 100, pageSize: 100 })).statusCode).to.equal(200);
    let res: Awaited<ReturnType<typeof history>> | undefined;
    const sql = await statementsOf(async () => (res = await history({ line: 'VEH', page: 999999 })));
    expect(res!.statusCode).to.equal(400);
    expect(res!.body).to.deep.equal({ status: false, msg: pageTooDeep(MAX_LIST_DEPTH / 50, MAX_LIST_DEPTH) });
    expect(listReads(sql)).to.deep.equal([]);
    const wide = await history({ line: 'VEH', page: MAX_LIST_DEPTH / 500 + 1, pageSize: 500 });
    expect(wide.body).to.deep.equal({ status: false, msg: pageTooDeep(MAX_LIST_DEPTH / 500, MAX_LIST_DEPTH) });
  });

  it('GET /webhooks/deliveries and GET /centrales/servicios: the same 400 past the bound, the last page within it still answers', async () => {
    const deliveries = (page: number) => app.client.get(`api/v3/webhooks/deliveries?page=${page}`, { headers: { authorization: gen.auth } });
    const services = (page: number) => app.client.get(`api/v3/centrales/servicios?page=${page}`, { headers: { 'x-apikey': prov.apiKey } });
    const last = MAX_LIST_DEPTH / 50;
    for (const list of [deliveries, services]) {
      expect((await list(last)).statusCode).to.equal(200);
      let res: Awaited<ReturnType<typeof list>> | undefined;
      const sql = await statementsOf(async () => (res = await list(999999)));
      expect(res!.statusCode).to.equal(400);
      expect(res!.body).to.deep.equal({ status: false, msg: pageTooDeep(last, MAX_LIST_DEPTH) });
      expect(listReads(sql)).to.deep.equal([]);
    }
  });
});
