/** The start banner about public defaults (issue 8, item 12); the spawned processes' output is in roles and shutdown tests. */
import { expect } from 'chai';
import { loadConfig } from '../../config/index.js';
import { linksBanner, unsafeDefaultsBanner } from '../../src/main/banner.js';

const SECRETS = {
  JWT_SECRET: 'a-production-secret-of-32-characters-or-more',
  INTEGRITY_SECRET: 'another-production-secret-of-32-characters',
  SMS_PROVIDER: 'http',
  SMS_HTTP_URL: 'https://sms.example.com/send',
};
/** what production requires besides the secrets (D24) */
const PRODUCTION = { ...SECRETS, NODE_ENV: 'production', PUBLIC_ORIGIN: 'https://seguimiento.example.com' };

describe('start banner about public defaults', () => {
  it('names each public default and what to set, on lines a terminal cannot miss', () => {
    const text = unsafeDefaultsBanner(loadConfig({}), { demo: true })!;
    const lines = text.trimEnd().split('\n');
    expect(lines.every((l) => l.startsWith('!!'))).to.equal(true);
    expect(text).to.include('NODE_ENV is development').and.include('JWT_SECRET is not set').and.include('INTEGRITY_SECRET is not set');
    expect(text).to.include('config/demo.json').and.include('NODE_ENV=production').and.include('npm run provision');
    expect(text).to.include('OUTBOUND_ALLOW_PRIVATE is on');
  });

  it('says private addresses are reachable only while they are', () => {
    const text = unsafeDefaultsBanner(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'false' }), { demo: true })!;
    expect(text).to.include('JWT_SECRET is not set').and.not.include('OUTBOUND_ALLOW_PRIVATE');
  });

  it('names only what is public: the secrets set, the demo alone (npm start)', () => {
    const text = unsafeDefaultsBanner(loadConfig({ ...SECRETS, JWT_SECRET: undefined }), { demo: true })!;
    expect(text).to.include('JWT_SECRET is not set').and.not.include('INTEGRITY_SECRET is not set');
    const demoOnly = unsafeDefaultsBanner(loadConfig(SECRETS), { demo: true })!;
    expect(demoOnly).to.include('config/demo.json').and.not.include('is not set');
  });

  it('says nothing with both secrets set and no demo, nor in production', () => {
    expect(unsafeDefaultsBanner(loadConfig(SECRETS), { demo: false })).to.equal(null);
    expect(unsafeDefaultsBanner(loadConfig(PRODUCTION), { demo: true })).to.equal(null);
  });

  it('prints the links to open: the console, the customer page, the API docs and the queues (issue 31)', () => {
    const text = linksBanner(loadConfig({ PORT: '3000' }), { demo: true });
    expect(text).to.include('http://127.0.0.1:3000/admin/console').and.include('ops / change-me-now');
    expect(text).to.include('http://127.0.0.1:3000/seguimiento').and.include('http://127.0.0.1:3000/api/v3/docs').and.include('http://127.0.0.1:3000/admin/queues');
    // production names its PUBLIC_ORIGIN (D24), not the local port
    expect(linksBanner(loadConfig({ PORT: '8080', ...PRODUCTION }), { demo: false })).to.include('https://seguimiento.example.com/admin/console').and.not.include('change-me-now');
  });
});
