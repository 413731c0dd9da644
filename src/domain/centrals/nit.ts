/**
 * The check digit (dígito de verificación) of a Colombian NIT, as DIAN
 * defines it: the digits, from the right, weighted 3, 7, 13, 17, 19, 23, 29,
 * 37, 41, 43, 47, 53, 59, 67, 71; the sum modulo 11 gives r; the digit is r
 * when r is 0 or 1, else 11 − r.
 */
const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];

export function nitCheckDigit(nit: string): number {
  const digits = nit.replace(/\D/g, '');
  if (digits.length === 0 || digits.length > WEIGHTS.length) throw new RangeError(`not a NIT: ${JSON.stringify(nit)}`);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * WEIGHTS[i];
  const r = sum % 11;
  return r > 1 ? 11 - r : r;
}
