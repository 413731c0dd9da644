/**
 * Where an SMS may go (D24): a phone read as E.164 by libphonenumber-js, a
 * number written without `+` being national in SMS_COUNTRY_CODE (sent as is,
 * it could reach another country), and the destination prefixes allowed
 * (SMS_ALLOWED_PREFIXES).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** The phone in E.164 (`+573001234567`), national numbers read in `countryCode`; null when it is no valid number. */
export function toE164(phone: string, countryCode: string): string | null {
  const parsed = parsePhoneNumberFromString(phone, { defaultCallingCode: countryCode });
  return parsed?.isValid() ? parsed.number : null;
}

/** Whether an E.164 number starts with one of the allowed prefixes. */
export function allowedDestination(e164: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => e164.startsWith(p));
}
