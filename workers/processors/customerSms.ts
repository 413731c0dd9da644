/** customer-sms: a tracking code by SMS (D16), through the configured provider; bounded retries (registry.ts). */
import { sendRecordedSms } from '../../src/sms/messages.js';
import { smsProvider } from '../../src/sms/providers.js';
import { smsSealKey } from '../../src/sms/seal.js';
import type { Handlers } from './index.js';

export const customerSmsHandlers: Handlers['customer-sms'] = {
  send: async (rt, { smsId }, job) => {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await sendRecordedSms(rt.orm.em.fork(), smsProvider(rt.config), smsId, lastAttempt, smsSealKey(rt.config.integritySecret));
  },
};
