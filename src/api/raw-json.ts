/**
 * Already-serialized JSON inside a response body: an endpoint that has a value as JSON text (cached
 * message objects, events/wire/message-json.ts) puts it in its outcome as `new RawJson(text)`, and
 * `stringifyBody` splices the text in instead of serializing it again.
 */

/** JSON text to splice into a response body as is; `text` must be one valid JSON value. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * `JSON.stringify(body)`, except that top-level `RawJson` values are written as their text (only the
 * top level is looked at: that is where endpoints put them). Throws what `JSON.stringify` throws
 * (a cycle, a BigInt).
 */
export function stringifyBody(body: object): string {
  let raw = false;
  for (const key in body) {
    if ((body as Record<string, unknown>)[key] instanceof RawJson) {
      raw = true;
      break;
    }
  }
  if (!raw) return JSON.stringify(body);
  let out = '';
  for (const key in body) {
    const value = (body as Record<string, unknown>)[key];
    const text = value instanceof RawJson ? value.text : JSON.stringify(value);
    if (text === undefined) continue; // JSON.stringify leaves out undefined and functions
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${text}`;
  }
  return out === '' ? '{}' : `${out}}`;
}
