/**
 * SMS providers (D16), chosen by SMS_PROVIDER:
 * - outbox (default, offline): nothing leaves the machine; the message stays in
 *   the `sms_message` table, where operators (and the tests) read it;
 * - http: POST JSON `{to, body}` to SMS_HTTP_URL, `Authorization: Bearer
 *   SMS_HTTP_TOKEN` when set; any 2xx is sent;
 * - twilio: Twilio's REST API, `POST /2010-04-01/Accounts/{SID}/Messages.json`
 *   (form body To, From, Body; Basic auth with the account SID and token).
 * A provider throws SmsSendError on failure; the queue retries (registry.ts).
 */
import got from 'got';
import type { Config } from '../../config/index.js';

export type SmsProviderName = Config['smsProvider'];

export interface SmsProvider {
  readonly name: SmsProviderName;
  /** sends one message; returns the provider's id for it when it gives one */
  send(to: string, body: string): Promise<{ providerId: string | null }>;
}

export class SmsSendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

type SmsConfig = Pick<
  Config,
  'smsProvider' | 'smsHttpUrl' | 'smsHttpToken' | 'twilioAccountSid' | 'twilioAuthToken' | 'twilioFrom' | 'twilioApiUrl' | 'smsTimeoutMs'
>;

const outbox: SmsProvider = { name: 'outbox', send: async () => ({ providerId: null }) };

/** A 4xx other than 408/429 will not get better by retrying. */
const retryable = (status: number): boolean => status >= 500 || status === 408 || status === 429;

function failure(err: unknown): SmsSendError {
  const e = err as { response?: { statusCode: number; body?: unknown }; code?: string; message: string };
  if (e.response) {
    const body = typeof e.response.body === 'string' ? e.response.body.slice(0, 300) : '';
    return new SmsSendError(`HTTP ${e.response.statusCode} ${body}`.trim(), retryable(e.response.statusCode));
  }
  return new SmsSendError(e.code ?? e.message, true);
}

function httpProvider(cfg: SmsConfig): SmsProvider {
  return {
    name: 'http',
    async send(to, body) {
      try {
        const res = await got.post(cfg.smsHttpUrl, {
          json: { to, body },
          headers: cfg.smsHttpToken ? { authorization: `Bearer ${cfg.smsHttpToken}` } : {},
          timeout: { request: cfg.smsTimeoutMs },
          retry: { limit: 0 },
          followRedirect: false,
          responseType: 'text',
        });
        const id = /"id"\s*:\s*"([^"]{1,100})"/.exec(res.body)?.[1] ?? null;
        return { providerId: id };
      } catch (err) {
        throw failure(err);
      }
    },
  };
}

function twilioProvider(cfg: SmsConfig): SmsProvider {
  return {
    name: 'twilio',
    async send(to, body) {
      try {
        const res = await got.post(`${cfg.twilioApiUrl}/2010-04-01/Accounts/${cfg.twilioAccountSid}/Messages.json`, {
          form: { To: to, From: cfg.twilioFrom, Body: body },
          username: cfg.twilioAccountSid,
          password: cfg.twilioAuthToken,
          timeout: { request: cfg.smsTimeoutMs },
          retry: { limit: 0 },
          followRedirect: false,
          responseType: 'json',
        });
        const sid = (res.body as { sid?: unknown }).sid;
        return { providerId: typeof sid === 'string' ? sid.slice(0, 64) : null };
      } catch (err) {
        throw failure(err);
      }
    },
  };
}

export function smsProvider(cfg: SmsConfig): SmsProvider {
  switch (cfg.smsProvider) {
    case 'outbox':
      return outbox;
    case 'http':
      return httpProvider(cfg);
    case 'twilio':
      return twilioProvider(cfg);
  }
}
