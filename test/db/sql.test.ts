/**
 * The driver's path for hot statements (src/db/sql.ts): inside a transaction
 * a statement runs on the transaction's connection (it sees the
 * transaction's writes and is undone with it); outside, on a pooled
 * connection that goes back to the pool.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from '../../src/db/orm.js';
import { prepared, sql, sqlCount } from '../../src/db/sql.js';
import { refusalsExpected } from '../helpers/refused.js';

describe('sql (the driver path)', () => {
  let orm: MikroORM;
  before(async () => {
    orm = await createOrm(process.env.DATABASE_URL!);
    await orm.em.fork().execute('create table if not exists sql_probe (id int primary key, label text)');
    await orm.em.fork().execute('truncate sql_probe');
  });
  after(async () => {
    await orm.em.fork().execute('drop table if exists sql_probe');
    await orm.close();
  });

  it('takes part in the caller\'s transaction: its writes are seen there and undone with it', async () => {
    const failed = orm.em.fork().transactional(async (em) => {
      await em.execute(`insert into sql_probe (id, label) values (1, 'in the transaction')`);
      const [row] = await sql<{ label: string }>(em, 'select label from sql_probe where id = $1', [1]);
      expect(row?.label, 'the transaction\'s own write').to.equal('in the transaction');
      expect(await sqlCount(em, 'update sql_probe set label = $1 where id = any($2::int[])', ['changed', [1, 2]])).to.equal(1);
      throw new Error('roll back');
    });
    await failed.then(() => expect.fail('should roll back'), (err: Error) => expect(err.message).to.equal('roll back'));
    expect(await sql(orm.em.fork(), 'select * from sql_probe')).to.deep.equal([]);
  });

  it('outside a transaction runs on a pooled connection and gives it back', async () => {
    for (let i = 0; i < 30; i++) expect(await sql<{ n: number }>(orm.em.fork(), 'select $1::int as n', [i])).to.deep.equal([{ n: i }]);
    const pool = (orm.em.getConnection().getKnex().client as { pool: { numUsed(): number } }).pool;
    expect(pool.numUsed(), 'no connection kept').to.equal(0);
  });

  it('a failing statement releases its connection too', async () => {
    refusalsExpected();
    for (let i = 0; i < 12; i++) {
      await sql(orm.em.fork(), 'select * from no_such_table').then(
        () => expect.fail('should fail'),
        (err: Error) => expect(err.message).to.contain('no_such_table'),
      );
    }
    expect(await sql<{ ok: boolean }>(orm.em.fork(), 'select true as ok')).to.deep.equal([{ ok: true }]);
  });

  it('a prepared statement is parsed once per connection and then only run, in and out of transactions', async () => {
    refusalsExpected();
    const double = prepared('select $1::int * 2 as n');
    expect(double.name, 'named after its text').to.equal(prepared('select $1::int * 2 as n').name);
    expect(double.name).to.not.equal(prepared('select $1::int * 3 as n').name);
    // past the five custom plans, so PostgreSQL's generic plan runs too
    for (let i = 0; i < 12; i++) expect(await sql<{ n: number }>(orm.em.fork(), double, [i])).to.deep.equal([{ n: 2 * i }]);
    await orm.em.fork().transactional(async (em) => {
      for (let i = 0; i < 8; i++) expect(await sql<{ n: number }>(em, double, [i])).to.deep.equal([{ n: 2 * i }]);
      const [{ count }] = await sql<{ count: number }>(em, 'select count(*)::int as count from pg_prepared_statements where name = $1', [double.name]);
      expect(count, 'kept on the connection that ran it').to.equal(1);
    });
    // a text PostgreSQL refuses is never kept, and the connection goes on
    const broken = prepared('select * from no_such_table where id = $1');
    for (let i = 0; i < 3; i++) {
      await sql(orm.em.fork(), broken, [1]).then(
        () => expect.fail('should fail'),
        (err: Error) => expect(err.message).to.contain('no_such_table'),
      );
    }
    expect(await sql<{ n: number }>(orm.em.fork(), double, [21])).to.deep.equal([{ n: 42 }]);
  });
});
