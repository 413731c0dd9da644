import got, { RequestError } from 'got';
import { GeocoderError } from './geocoder.js';

const USER_AGENT = 'service-offer-broker/0.1 (geocoding)';

/**
 * One GET of a geocoding API: JSON, a total timeout, no retries (a request is
 * waiting), no redirects. Anything but a 200 with a JSON body is a GeocoderError.
 */
export async function getJson(
  provider: string,
  url: string,
  searchParams: Record<string, string | number>,
  timeoutMs: number,
): Promise<unknown> {
  try {
    const res = await got.get(url, {
      searchParams,
      headers: { 'user-agent': USER_AGENT, 'accept-language': 'es' },
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      responseType: 'json',
    });
    if (res.statusCode !== 200) throw new GeocoderError(`${provider}: HTTP ${res.statusCode}`);
    return res.body;
  } catch (err) {
    if (err instanceof GeocoderError) throw err;
    if (err instanceof RequestError) {
      const what = err.code === 'ETIMEDOUT' ? `timeout after ${timeoutMs} ms` : `${err.code ?? 'error'}: ${err.message}`;
      throw new GeocoderError(`${provider}: ${what}`);
    }
    throw err;
  }
}

/** A finite number from a JSON number or numeric string, else null. */
export function toNumber(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}
