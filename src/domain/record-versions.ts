/**
 * The record versions this parley reads (src/README.md: words: records are versioned; an old record must
 * still load after an upgrade, and a record from a newer parley must not be half-applied).
 * `evolve` checks every record against this table before applying it, so an unknown type or
 * version stops recovery with a clear error instead of folding a shape the code does not know.
 *
 * Adding a version: list it here and teach the record's evolver to read it (old versions stay
 * listed for as long as a store may hold them). The mapped type makes the table list every
 * record type of `RealmRecord` and nothing else.
 */
import type { RealmRecord } from './records.js';

/** Every version of each record type that `evolve` can apply. */
export const RECORD_VERSIONS: { readonly [T in RealmRecord['type']]: readonly number[] } = {
  alert_words_changed: [1],
  api_key_regenerated: [1],
  attachment_deleted: [1],
  attachment_messages_changed: [1],
  attachment_uploaded: [1],
  avatar_changed: [1],
  bot_updated: [1],
  channel_folder_created: [1],
  channel_folder_updated: [1],
  channel_folders_reordered: [1],
  custom_profile_field_created: [1],
  custom_profile_field_deleted: [1],
  custom_profile_field_updated: [1],
  custom_profile_fields_reordered: [1],
  custom_profile_values_changed: [1],
  draft_deleted: [1],
  draft_edited: [1],
  drafts_cleared: [1],
  drafts_created: [1],
  linkifiers_changed: [1],
  message_edited: [1],
  message_flags_changed: [1],
  message_sent: [1],
  messages_deleted: [1],
  multiuse_invite_created: [1],
  multiuse_invite_revoked: [1],
  email_invites_created: [1],
  email_invite_revoked: [1],
  email_invite_resent: [1],
  email_invites_used: [1],
  navigation_view_added: [1],
  navigation_view_removed: [1],
  navigation_view_updated: [1],
  realm_icon_changed: [1],
  scheduled_message_created: [1],
  scheduled_message_deleted: [1],
  scheduled_message_delivered: [1],
  scheduled_message_edited: [1],
  scheduled_message_failed: [1],
  submessage_added: [1],
  reaction_added: [1],
  reaction_removed: [1],
  realm_created: [1],
  realm_playground_added: [1],
  realm_playground_removed: [1],
  realm_user_default_changed: [1],
  realm_domain_added: [1],
  realm_domain_changed: [1],
  realm_domain_removed: [1],
  bot_storage_set: [1],
  bot_storage_removed: [1],
  realm_emoji_added: [1],
  realm_emoji_deactivated: [1],
  realm_settings_changed: [1],
  session_created: [1],
  sessions_ended: [1],
  stream_created: [1],
  stream_updated: [1],
  subscription_property_changed: [1],
  subscriptions_added: [1],
  subscriptions_removed: [1],
  user_created: [1],
  user_group_created: [1],
  user_group_membership_changed: [1],
  user_group_updated: [1],
  user_password_changed: [1],
  user_status_set: [1],
  user_topic_set: [1],
  user_updated: [1],
  user_muted: [1],
  user_unmuted: [1],
  saved_snippet_created: [1],
  saved_snippet_edited: [1],
  saved_snippet_deleted: [1],
  push_device_added: [1],
  push_devices_removed: [1],
};

/** A record `evolve` cannot apply: unknown type, or a version this parley does not read. */
export class UnknownRecordError extends Error {
  override readonly name = 'UnknownRecordError';
}

/**
 * Throws {@link UnknownRecordError} unless `record` has a known `type` and one of that type's
 * versions (`v`); the message names both and what this parley reads.
 */
export function checkRecordVersion(record: { type?: unknown; v?: unknown }): void {
  const type = record.type;
  const versions = typeof type === 'string' && Object.hasOwn(RECORD_VERSIONS, type)
    ? RECORD_VERSIONS[type as RealmRecord['type']]
    : undefined;
  if (versions === undefined) {
    throw new UnknownRecordError(`unknown record type ${JSON.stringify(type)}: written by a newer parley?`);
  }
  if (!versions.includes(record.v as number)) {
    throw new UnknownRecordError(
      `record ${type} has version ${JSON.stringify(record.v)}; this parley reads version ${versions.join(', ')}: written by a newer parley?`,
    );
  }
}

/** Exhaustiveness check for a `switch` over a union: compile error when a member is unhandled. */
export function assertNever(value: never, what: string): never {
  throw new UnknownRecordError(`unhandled ${what} ${JSON.stringify((value as { type?: unknown }).type ?? value)}`);
}
