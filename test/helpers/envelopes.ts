import { expect } from 'chai';

export type Body = Record<string, unknown>;

export const ERROR_ID = /^err_\d+_[0-9a-f]+$/;

export function expectIsoTimestamp(value: unknown): void {
  expect(value).to.be.a('string');
  expect(new Date(value as string).toISOString()).to.equal(value);
}

/** The system envelope of spec 7.2: exactly {error: true, message, errorId, timestamp}. */
export function expectSystemEnvelope(body: unknown, message: string): Body {
  const b = body as Body;
  expect(b).to.have.keys('error', 'message', 'errorId', 'timestamp');
  expect(b.error).to.equal(true);
  expect(b.message).to.equal(message);
  expect(b.errorId).to.match(ERROR_ID);
  expectIsoTimestamp(b.timestamp);
  return b;
}

/** The API key validator's envelope of spec 5.2: {status: false, msg, timestamp} plus `extra` keys. */
export function expectKeyEnvelope(body: unknown, msg: string, extra: Body = {}): Body {
  const b = body as Body;
  expect(b).to.have.keys('status', 'msg', 'timestamp', ...Object.keys(extra));
  expect(b.status).to.equal(false);
  expect(b.msg).to.equal(msg);
  expectIsoTimestamp(b.timestamp);
  for (const [k, v] of Object.entries(extra)) expect(b[k]).to.deep.equal(v);
  return b;
}
