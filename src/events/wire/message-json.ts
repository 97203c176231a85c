/**
 * Message objects as JSON text for reads (`GET /messages`, `GET /messages/{id}`): Zulip's message
 * object (`buildMessageWire` + `addEditFields`, messages.ts), serialized once per message and view through the realm's
 * `MessageWireCache` (domain/message-wire-cache.ts); a read adds the viewer's `flags` (and a
 * search's highlights) to the cached text. Zulip's split is the same: a cached `wide_dict`, then
 * `finalize_payload` per request (zerver/lib/message_cache.py).
 */
import type { RealmState, User } from '../../domain/realm-state.js';
import type { MessageBody } from '../../domain/records.js';
import { Flag, flagNames } from '../../domain/message-index.js';
import { indexedMessageFields, type MessageView } from '../../domain/messages.js';
import { messageWireCache } from '../../domain/message-wire-cache.js';
import { addEditFields, buildMessageWire } from './messages.js';

/** The view's variant number in the cache (0–7). */
function variantOf(view: MessageView): number {
  return (view.applyMarkdown ? 1 : 0) | (view.clientGravatar ? 2 : 0) | (view.allowEmptyTopicName ? 4 : 0);
}

/**
 * Message `id`'s object without `flags` and without its closing brace (`{"id":…,"edit_history":[…]`),
 * as UTF-8 JSON, from the cache or built from `body` and cached. `body` is read only on a miss; `undefined` from
 * it means the message has no readable body (the caller skips it); nothing is cached then.
 */
export function messageJsonPrefix(
  state: RealmState,
  id: number,
  readBody: (id: number) => MessageBody | undefined,
  view: MessageView,
): Uint8Array | undefined {
  const cache = messageWireCache(state);
  const variant = variantOf(view);
  const cached = cache.get(state, id, variant);
  if (cached !== undefined) return cached;
  const body = readBody(id);
  if (body === undefined) return undefined;
  const wire = buildMessageWire(
    state,
    indexedMessageFields(state, id),
    view.applyMarkdown ? body.rendered : body.content,
    view.applyMarkdown ? 'text/html' : 'text/x-markdown',
    view,
  );
  addEditFields(state, id, wire, view.allowEmptyTopicName);
  const prefix = utf8(JSON.stringify(wire).slice(0, -1));
  cache.set(id, variant, prefix);
  return prefix;
}

/** `text` as UTF-8 in a buffer of its own (not a slice of Node's shared pool, which a cache would pin). */
function utf8(text: string): Uint8Array {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

const flagsJsonByBits = new Map<number, Uint8Array>();

/** `,"flags":[…]}` as UTF-8: closes a prefix with `viewer`'s flags (`["read","historical"]` without a row). */
export function flagsSuffix(state: RealmState, viewer: User, id: number): Uint8Array {
  return flagsSuffixOf(state.messages.userFlags(viewer.id, id));
}

/**
 * `flagsSuffix` for flag bits already looked up (a message list's `RowCursor`); undefined (no
 * UserMessage row) is Zulip's `read` + `historical`.
 */
export function flagsSuffixOf(rowFlags: number | undefined): Uint8Array {
  const bits = rowFlags ?? Flag.read | Flag.historical;
  let json = flagsJsonByBits.get(bits);
  if (json === undefined) flagsJsonByBits.set(bits, (json = utf8(`,"flags":${JSON.stringify(flagNames(bits))}}`)));
  return json;
}
