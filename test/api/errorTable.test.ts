/**
 * The document's error answers agree with the error table (issue 27 item 4):
 * an example whose text is the wording of a domain code (the table's, or the
 * operation's own for that code) is listed under that code's status.
 */
import { expect } from 'chai';
import { ERROR_TABLE } from '../../src/api/errorTable.js';
import { OPERATIONS } from '../../src/api/operations.js';
import type { DomainErrorCode } from '../../src/domain/errors.js';

/** The statuses a text is answered with, by the table or by `op`'s wording. */
function statusesOf(text: string, wording: Partial<Record<DomainErrorCode, { status: number; message: string }>> = {}): number[] {
  const out: number[] = [];
  for (const [code, entry] of Object.entries(ERROR_TABLE) as Array<[DomainErrorCode, { status: number; message: (f: never) => string }]>) {
    const own = wording[code];
    if (own) {
      if (own.message === text) out.push(own.status);
      continue;
    }
    let message: string | undefined;
    try {
      message = entry.message({} as never);
    } catch {
      message = undefined;
    }
    if (message === text) out.push(entry.status);
  }
  return out;
}

describe('the error table and the document (issue 27)', () => {
  it('every error example worded by a domain code is listed under that code’s status', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const op of OPERATIONS) {
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        for (const [name, example] of Object.entries(r.examples ?? {})) {
          const body = example as { msg?: unknown; data?: unknown };
          const text = typeof body.msg === 'string' ? body.msg : typeof body.data === 'string' ? body.data : null;
          if (text === null) continue;
          const statuses = statusesOf(text, op.wording);
          if (!statuses.length) continue;
          checked += 1;
          if (!statuses.includes(Number(status))) wrong.push(`${op.operationId} ${status} ${name}: the table answers ${statuses.join(' or ')}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(checked, 'examples worded by a domain code').to.be.greaterThan(10);
  });

  it('one code per concept: the offer not found is offer.not-found, worded by each operation', () => {
    const codes = Object.keys(ERROR_TABLE);
    expect(codes).to.include('offer.not-found');
    expect(codes.filter((c) => /offer-not-found$|^finalize\.not-found$/.test(c))).to.deep.equal([]);
    const worded = OPERATIONS.filter((op) => op.wording?.['offer.not-found']).map((op) => op.operationId);
    expect(worded.sort()).to.deep.equal(['acceptOffer', 'finalizeService', 'getOfferResponses', 'reportProgress']);
  });
});
