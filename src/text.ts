/**
 * Text PostgreSQL can store (D19, issue 8.3 and 8.4): no NUL character (text and jsonb refuse
 * `\u0000`) and no lone surrogate (not valid UTF-8). Used where a client's string enters (refused
 * with a 400 naming the field) and where an outside peer's text is written (made storable).
 * Neutral module: the HTTP edge, the sockets, the webhooks and the geocoders all use it.
 */

/** True when `s` can be stored as it is. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && s.isWellFormed();
}

/** `s` with each NUL and each lone surrogate replaced by U+FFFD (for outside replies and geocoder results). */
export function storableText(s: string): string {
  return isStorableText(s) ? s : s.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/** Appends a key to a path: `vehiculo.marca`, `paradas[0].direccion`. */
function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * The path of the first string or object key in `value` that cannot be stored (`observaciones`,
 * `vehiculo.marca`, `paradas[0]`; `''` for the value itself), or null when every one can. Walks
 * without recursion, so a 10,000-level nesting costs no stack.
 */
export function findUnstorableText(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], childPath(path, i)]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const p = childPath(path, key);
        if (!isStorableText(key)) return p;
        stack.push([(v as Record<string, unknown>)[key], p]);
      }
    }
  }
  return null;
}

/** The 400 text naming the field (D19), e.g. `EL CAMPO 'observaciones' CONTIENE CARACTERES NO PERMITIDOS`. */
export function unstorableTextMessage(path: string): string {
  return path === '' ? 'EL CUERPO DE LA SOLICITUD CONTIENE CARACTERES NO PERMITIDOS' : `EL CAMPO '${path}' CONTIENE CARACTERES NO PERMITIDOS`;
}
