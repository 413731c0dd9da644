/**
 * The fast-check arbitraries of the edge fuzz tests (test/hardening/fuzz*.test.ts): JSON texts with the
 * special values (NUL, lone surrogates, 50,000-character strings, deep nesting, huge arrays, extreme numbers),
 * and near-valid bodies built from a valid one.
 */
import fc from 'fast-check';

export const DEEP = 10_000;
export const deepArray = `${'['.repeat(DEEP)}"x\\u0000"${']'.repeat(DEEP)}`;
export const deepObject = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;
export const hugeArray = `[${Array.from({ length: 100_000 }, (_, i) => i % 10).join(',')}]`;
export const hugeStrings = `[${Array.from({ length: 2_000 }, () => '"\\ud800"').join(',')}]`;
export const long50k = JSON.stringify('x'.repeat(50_000));
export const longUnicode = JSON.stringify('ñ🚗'.repeat(12_500));

export const special = fc.constantFrom(
  '"\\u0000"',
  '"antes\\u0000después"',
  '"\\ud800"',
  '"\\udfff fin"',
  '"🚗"',
  long50k,
  longUnicode,
  deepArray,
  deepObject,
  hugeArray,
  hugeStrings,
  '1e308',
  '-1e308',
  '9007199254740993',
  '1e-320',
  '-0',
  '0',
  'null',
  'true',
  '[]',
  '{}',
  '""',
  '" "',
  '"0"',
  '"4.6533"',
  '"-74.0836"',
  '"2026-02-30"',
  '"25:61"',
  '"1,2,3"',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
);
export const spacesAroundDigits = fc
  .tuple(fc.nat({ max: 1000 }), fc.constantFrom('4.6533', '-74.08', '12', '2026-11-24', '10:30', '1'), fc.nat({ max: 1000 }))
  .map(([a, d, b]) => JSON.stringify(`${' '.repeat(a)}${d}${' '.repeat(b)}`));
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: special },
  { weight: 2, arbitrary: spacesAroundDigits },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.double().map((n) => (Number.isFinite(n) ? JSON.stringify(n) : '1e308')) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
);

/** A body as JSON text: a valid one with some fields replaced or added, or something else entirely. */
export function bodyText(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = [...Object.keys(base), 'extra', 'vehiculo', 'data', '__proto__', 'nota\\u0000', 'k\\ud800'];
  const mutated = fc.dictionary(fc.constantFrom(...keys), jsonText, { maxKeys: 4 }).map((changes) => {
    const entries = new Map<string, string>(Object.entries(base).map(([k, v]) => [JSON.stringify(k), JSON.stringify(v) ?? 'null']));
    for (const [k, v] of Object.entries(changes)) entries.set(k.includes('\\') ? `"${k}"` : JSON.stringify(k), v);
    return `{${[...entries].map(([k, v]) => `${k}:${v}`).join(',')}}`;
  });
  return fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 1, arbitrary: jsonText },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', '[1,2', 'nul', '{"a":"\\x"}', '{"a":"\\ud800"', '\u0000', '') },
  );
}
