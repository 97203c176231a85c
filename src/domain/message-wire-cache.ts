/**
 * A cache of message objects as JSON (UTF-8 bytes), per realm state within one process-wide byte
 * budget, viewer-independent (no `flags`), so that
 * `GET /messages` and `GET /messages/{id}` serialize a message once rather than on every read
 * (issue 17: JSON building was a third of a list request's CPU). Zulip does the same with its
 * message cache: `MessageDict.wide_dict` is cached (zerver/lib/message_cache.py `MessageDict`,
 * `messages_for_ids`) and only the per-user parts are added per request (`finalize_payload`).
 *
 * The cache holds opaque bytes; events/wire/message-json.ts builds them. What keeps them true is
 * `forgetStaleWire`, run by `evolve` for every record: a record changes a message's wire form either
 * not at all (a new message, flags, drafts...), for the messages it names (reactions, edits,
 * deletions, submessages), or possibly for all of them (a user, channel or setting changed: the
 * realm's entries are dropped). The table below is typed over every record type, so a new record type does not
 * compile until it says which. A reloaded realm state is a new object and starts with no cache.
 */
import { LRUCache } from 'lru-cache';
import type { RealmState } from './realm-state.js';
import type { RealmRecord } from './records.js';

/**
 * Bytes of JSON kept at most, for every realm of the process together (8 MiB): one budget, so that
 * a server hosting many organizations does not keep a full cache for each idle one.
 */
export const WIRE_CACHE_MAX_BYTES = 8 * 1024 * 1024;

/** Variants of one message's text: `apply_markdown` × `client_gravatar` × `allow_empty_topic_name`. */
const VARIANTS = 8;

/**
 * Every realm's texts, least recently used evicted first. Keys are `generation:slot`; a realm's cache
 * drops everything by moving to a new generation (the old entries are never read again and age out).
 */
const texts = new LRUCache<string, Uint8Array>({ maxSize: WIRE_CACHE_MAX_BYTES, sizeCalculation: (text) => text.byteLength });
let nextGeneration = 1;

/** Bytes held by every realm's cache together (for tests and metrics). */
export function wireCacheBytes(): number {
  return texts.calculatedSize;
}

/** One realm state's view of the process-wide cache: message texts (UTF-8 JSON) by id and view variant. */
export class MessageWireCache {
  private generation = nextGeneration++;
  /** Whether anything was stored since the last `clear` (else there is nothing to forget). */
  private filled = false;
  /** The realm's host and subdomain the texts were built with (sender emails, `sender_realm_str`). */
  private host: string;
  private subdomain: string;

  constructor(state: RealmState) {
    this.host = state.host;
    this.subdomain = state.subdomain;
  }

  /** The cached text of message `id` in view `variant` (0–7), or `undefined`. */
  get(state: RealmState, id: number, variant: number): Uint8Array | undefined {
    // The host and subdomain are set outside `evolve` (start-up, a subdomain change).
    if (state.host !== this.host || state.subdomain !== this.subdomain) {
      this.clear();
      this.host = state.host;
      this.subdomain = state.subdomain;
      return undefined;
    }
    return texts.get(this.key(id, variant));
  }

  /** Stores the text of message `id` in view `variant`. */
  set(id: number, variant: number, text: Uint8Array): void {
    texts.set(this.key(id, variant), text);
    this.filled = true;
  }

  /** Forgets every variant of the given messages. */
  forget(ids: readonly number[]): void {
    if (!this.filled) return;
    for (const id of ids) for (let v = 0; v < VARIANTS; v++) texts.delete(this.key(id, v));
  }

  /** Forgets everything of this realm. */
  clear(): void {
    this.generation = nextGeneration++;
    this.filled = false;
  }

  /** Whether anything was stored since the last `clear` (entries may have been evicted since). */
  get isFilled(): boolean {
    return this.filled;
  }

  private key(id: number, variant: number): string {
    return `${this.generation}:${id * VARIANTS + variant}`;
  }
}

const caches = new WeakMap<RealmState, MessageWireCache>();

/** The cache of `state` (created on first use). */
export function messageWireCache(state: RealmState): MessageWireCache {
  let cache = caches.get(state);
  if (cache === undefined) caches.set(state, (cache = new MessageWireCache(state)));
  return cache;
}

/** What a record does to cached message texts: nothing, the named messages', or anyone's. */
type WireEffect<R> = 'none' | 'all' | ((record: R) => readonly number[]);

/**
 * Every record type's effect on message objects (https://zulip.com/api/get-message: sender
 * name/email/avatar, channel name, topic links, reactions, submessages, edit history, the realm's
 * settings). `flags` are per viewer and never cached, so flag, subscription and per-user records
 * are `'none'`. When in doubt, `'all'`: it only costs a rebuild.
 */
const WIRE_EFFECTS: { [T in RealmRecord['type']]: WireEffect<Extract<RealmRecord, { type: T }>> } = {
  message_sent: 'none',
  message_flags_changed: 'none',
  message_edited: (r) => r.messageIds,
  messages_deleted: (r) => r.ids,
  reaction_added: (r) => [r.messageId],
  reaction_removed: (r) => [r.messageId],
  submessage_added: (r) => [r.submessage.messageId],
  subscriptions_added: 'none',
  subscriptions_removed: 'none',
  subscription_property_changed: 'none',
  user_topic_set: 'none',
  user_status_set: 'none',
  drafts_created: 'none',
  draft_edited: 'none',
  draft_deleted: 'none',
  drafts_cleared: 'none',
  scheduled_message_created: 'none',
  scheduled_message_edited: 'none',
  scheduled_message_deleted: 'none',
  scheduled_message_delivered: 'none',
  scheduled_message_failed: 'none',
  session_created: 'none',
  sessions_ended: 'none',
  attachment_uploaded: 'none',
  attachment_deleted: 'none',
  attachment_messages_changed: 'none',
  bot_storage_set: 'none',
  bot_storage_removed: 'none',
  saved_snippet_created: 'none',
  saved_snippet_edited: 'none',
  saved_snippet_deleted: 'none',
  push_device_added: 'none',
  push_devices_removed: 'none',
  alert_words_changed: 'none',
  user_muted: 'none',
  user_unmuted: 'none',
  navigation_view_added: 'none',
  navigation_view_updated: 'none',
  navigation_view_removed: 'none',
  api_key_regenerated: 'none',
  user_password_changed: 'none',
  realm_created: 'all',
  realm_settings_changed: 'all',
  realm_user_default_changed: 'all',
  linkifiers_changed: 'all',
  user_created: 'all',
  user_updated: 'all',
  avatar_changed: 'all',
  bot_updated: 'all',
  stream_created: 'all',
  stream_updated: 'all',
  user_group_created: 'all',
  user_group_membership_changed: 'all',
  user_group_updated: 'all',
  custom_profile_field_created: 'all',
  custom_profile_field_updated: 'all',
  custom_profile_field_deleted: 'all',
  custom_profile_fields_reordered: 'all',
  custom_profile_values_changed: 'all',
  channel_folder_created: 'all',
  channel_folder_updated: 'all',
  channel_folders_reordered: 'all',
  multiuse_invite_created: 'all',
  multiuse_invite_revoked: 'all',
  email_invites_created: 'all',
  email_invite_revoked: 'all',
  email_invite_resent: 'all',
  email_invites_used: 'all',
  realm_emoji_added: 'all',
  realm_emoji_deactivated: 'all',
  realm_playground_added: 'all',
  realm_playground_removed: 'all',
  realm_domain_added: 'all',
  realm_domain_changed: 'all',
  realm_domain_removed: 'all',
  realm_icon_changed: 'all',
};

/**
 * Drops the cached texts `record` may change (called by `evolve` before it applies the record).
 * Costs one WeakMap lookup when the realm has no cache (recovery replay).
 */
export function forgetStaleWire(state: RealmState, record: RealmRecord): void {
  const cache = caches.get(state);
  if (cache === undefined || !cache.isFilled) return;
  const effect = WIRE_EFFECTS[record.type] as WireEffect<RealmRecord>;
  if (effect === 'none') return;
  if (effect === 'all') cache.clear();
  else cache.forget(effect(record));
}
