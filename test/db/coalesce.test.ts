/** Natural batching (src/main/coalesce.ts): alone at once, together while busy, each call answered for itself. */
import { expect } from 'chai';
import { Coalescer, Refused, orOneByOne } from '../../src/db/coalesce.js';

/** A run whose batches are recorded and finished by the test. */
function gated() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((n) => n * 10);
  };
  /** finishes the oldest batch still running */
  const release = () => gates.shift()!();
  return { batches, run, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  it('runs a call at once when fewer batches than allowed are in flight, and batches what arrives meanwhile', async () => {
    const g = gated();
    const c = new Coalescer(g.run, { max: 3, concurrency: 2 });
    const results = [1, 2, 3, 4, 5, 6, 7].map((n) => c.submit(n));
    await settle();
    expect(g.batches, 'two alone, the rest waiting').to.deep.equal([[1], [2]]);
    g.release();
    await settle();
    expect(g.batches, 'the waiting ones together, at most max').to.deep.equal([[1], [2], [3, 4, 5]]);
    g.release();
    await settle();
    expect(g.batches).to.deep.equal([[1], [2], [3, 4, 5], [6, 7]]);
    g.release();
    g.release();
    expect(await Promise.all(results)).to.deep.equal([10, 20, 30, 40, 50, 60, 70]);
  });

  it('a Refused result rejects its own call alone', async () => {
    const c = new Coalescer(async (items: number[]) => items.map((n) => (n === 2 ? new Refused(new Error('two')) : n)), { max: 8, concurrency: 1 });
    const settled = await Promise.allSettled([1, 2, 3].map((n) => c.submit(n)));
    expect(settled.map((s) => s.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(((settled[1] as PromiseRejectedResult).reason as Error).message).to.equal('two');
  });

  it("a failing batch rejects its calls, the next batch still runs, and a synchronous throw fails like an asynchronous one", async () => {
    let calls = 0;
    const c = new Coalescer(
      (items: number[]) => {
        calls++;
        if (calls === 1) throw new Error('first batch');
        return Promise.resolve(items);
      },
      { max: 8, concurrency: 1 },
    );
    const first = c.submit(1);
    const later = [2, 3].map((n) => c.submit(n));
    await first.then(
      () => expect.fail('should fail'),
      (err: Error) => expect(err.message).to.equal('first batch'),
    );
    expect(await Promise.all(later)).to.deep.equal([2, 3]);
    expect(calls).to.equal(2);
  });

  it('a batch that answers the wrong number of results fails its calls rather than answering them wrongly', async () => {
    const c = new Coalescer(async (items: number[]) => items.slice(1), { max: 8, concurrency: 1 });
    const settled = await Promise.allSettled([c.submit(1)]);
    expect(settled[0].status).to.equal('rejected');
    expect(String((settled[0] as PromiseRejectedResult).reason)).to.contain('a batch of 1 gave 0 results');
  });

  it('orOneByOne: a batch that fails is run again item by item, so only the item refused fails; a batch of one fails as it is', async () => {
    const runs: number[][] = [];
    const run = orOneByOne(async (items: number[]) => {
      runs.push(items);
      if (items.includes(13)) throw new Error('13 refused');
      return items.map((n) => n * 10);
    });
    const results = await run([1, 13, 3]);
    expect(runs).to.deep.equal([[1, 13, 3], [1], [13], [3]]);
    expect(results[0]).to.equal(10);
    expect(results[1]).to.be.instanceOf(Refused);
    expect(((results[1] as Refused).error as Error).message).to.equal('13 refused');
    expect(results[2]).to.equal(30);
    await run([13]).then(
      () => expect.fail('a batch of one should fail'),
      (err: Error) => expect(err.message).to.equal('13 refused'),
    );
  });
});
