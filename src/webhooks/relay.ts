/**
 * What of a generator's reply is relayed to a central (D4c: a late
 * acceptance the generator refused answers the central 400 with the
 * generator's reply). Another tenant reads it, so it is bounded and cleaned:
 * at most RELAY_MAX_CHARS characters of the reply are considered, control
 * characters (other than tab and line breaks) and lone surrogates are removed,
 * a JSON object within the bound is relayed as it is (its strings cleaned),
 * anything else as text, cut at the bound with an ellipsis.
 */

/** The most of a reply (in characters) a central is shown; the row keeps its own 2 KB. */
export const RELAY_MAX_CHARS = 4096;

/** NUL and the other C0 controls but \t \n \r, DEL and the C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function cleanText(s: string): string {
  return s.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD');
}

export type RelayedReply = { kind: 'object'; value: Record<string, unknown> } | { kind: 'value'; value: unknown };

/** The relayable form of a reply body (non-empty). */
export function relayableReply(replyBody: string): RelayedReply {
  if (replyBody.length > RELAY_MAX_CHARS) {
    return { kind: 'value', value: `${cleanText(replyBody.slice(0, RELAY_MAX_CHARS))}…` };
  }
  try {
    const parsed: unknown = JSON.parse(replyBody, (_k, v: unknown) => (typeof v === 'string' ? cleanText(v) : v));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { kind: 'object', value: parsed as Record<string, unknown> };
    return { kind: 'value', value: parsed };
  } catch {
    return { kind: 'value', value: cleanText(replyBody) };
  }
}
