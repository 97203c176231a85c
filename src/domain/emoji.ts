/**
 * Zulip's Unicode emoji names (`zerver/lib/emoji.py` data: `emoji_names.json`, Apache-2.0, copied
 * verbatim from Zulip into `src/domain/emoji_names.json`): codepoint (hex, `-`-joined, e.g.
 * `1f697`, `0023-20e3`) → `{canonical_name, aliases}`.
 *
 * Loaded once at start-up, as a JSON module (no file I/O in the domain, nothing read while a
 * command runs; `tsc` copies the JSON next to the compiled module). Shared with the Markdown
 * renderer (`:name:` emoji), which should use `unicodeEmojiCodeByName`.
 */
import emojiNames from './emoji_names.json' with { type: 'json' };
import type { RealmState } from './realm-state.js';
import { activeRealmEmojiByName } from './realm-emoji.js';

/** One entry of `emoji_names.json`. */
interface EmojiNameEntry {
  canonical_name: string;
  aliases: string[];
}

/** Canonical names and aliases → codepoint; the first codepoint to claim an alias keeps it. */
const NAME_TO_CODE = new Map<string, string>();
/** Codepoint → canonical name. */
const CODE_TO_NAME = new Map<string, string>();
for (const [code, { canonical_name, aliases }] of Object.entries(emojiNames as Record<string, EmojiNameEntry>)) {
  CODE_TO_NAME.set(code, canonical_name);
  NAME_TO_CODE.set(canonical_name, code);
  for (const alias of aliases) if (!NAME_TO_CODE.has(alias)) NAME_TO_CODE.set(alias, code);
}

/** The codepoint of a Unicode emoji name (canonical or alias), e.g. `car` → `1f697`. */
export function unicodeEmojiCodeByName(name: string): string | undefined {
  return NAME_TO_CODE.get(name);
}

/** The canonical name of a Unicode emoji codepoint, or undefined when Zulip does not know it. */
export function unicodeEmojiNameByCode(code: string): string | undefined {
  return CODE_TO_NAME.get(code);
}

/** `reaction_type` values (https://zulip.com/api/add-reaction). */
export const ReactionType = {
  unicode: 'unicode_emoji',
  realm: 'realm_emoji',
  zulipExtra: 'zulip_extra_emoji',
} as const;

/** One of Zulip's `reaction_type` values. */
export type ReactionTypeName = (typeof ReactionType)[keyof typeof ReactionType];

const REACTION_TYPES: ReadonlySet<string> = new Set(Object.values(ReactionType));

/** Whether `type` is one of Zulip's `reaction_type` values. */
export function isReactionType(type: string): type is ReactionTypeName {
  return REACTION_TYPES.has(type);
}

/**
 * The stored `reaction_type` for a client's value: the seed (§2.1) names Zulip's built-in extra
 * emoji type `service_extra_emoji`; it is the same type as Zulip's `zulip_extra_emoji`, which is
 * what parley stores and sends in events. Other values pass through unchanged (validated later).
 */
export function canonicalReactionType(type: string): string;
export function canonicalReactionType(type: string | undefined): string | undefined;
export function canonicalReactionType(type: string | undefined): string | undefined {
  return type === 'service_extra_emoji' ? ReactionType.zulipExtra : type;
}

/** What realm-emoji lookups need (a `RealmState`; absent = a realm without custom emoji). */
type EmojiRealm = Pick<RealmState, 'realmEmoji'>;

/**
 * Zulip's `get_emoji_data` (zerver/lib/emoji.py): the (code, type) of a name, or null when it does
 * not exist. An active custom emoji of the realm wins (code = its id), then `zulip`, then Unicode.
 */
export function emojiCodeByName(name: string, realm?: EmojiRealm): { code: string; type: ReactionTypeName } | null {
  const custom = realm === undefined ? undefined : activeRealmEmojiByName(realm as RealmState, name);
  if (custom !== undefined) return { code: String(custom.id), type: ReactionType.realm };
  if (name === 'zulip') return { code: 'zulip', type: ReactionType.zulipExtra };
  const code = unicodeEmojiCodeByName(name);
  return code === undefined ? null : { code, type: ReactionType.unicode };
}

/**
 * Zulip's `check_emoji_request` (https://zulip.com/api/update-status step 4): the error message for an
 * invalid (name, code, type) triple, or null when valid. `realm_emoji`: the code must be a custom
 * emoji id of the realm ("Invalid custom emoji."), its name must match ("Invalid custom emoji
 * name."), and it must be active ("This custom emoji has been deactivated.").
 */
export function checkEmoji(name: string, code: string, type: string, realm?: EmojiRealm): string | null {
  switch (type) {
    case ReactionType.realm: {
      const custom = /^[0-9]+$/.test(code) ? realm?.realmEmoji?.items.get(Number(code)) : undefined;
      if (custom === undefined) return 'Invalid custom emoji.';
      if (custom.name !== name) return 'Invalid custom emoji name.';
      if (custom.deactivated) return 'This custom emoji has been deactivated.';
      return null;
    }
    case ReactionType.zulipExtra:
      if (code !== 'zulip') return 'Invalid emoji code.';
      if (name !== code) return 'Invalid emoji name.';
      return null;
    case ReactionType.unicode:
      if (unicodeEmojiNameByCode(code) === undefined) return 'Invalid emoji code.';
      if (unicodeEmojiCodeByName(name) !== code) return 'Invalid emoji name.';
      return null;
    default:
      return 'Invalid emoji type.';
  }
}

/**
 * Zulip's server emoji data (https://zulip.com/api/register-queue `server_emoji_data_url`; the
 * `emoji_api.json` that Zulip's tools/setup/emoji/build_emoji_assets generates): every Unicode
 * emoji codepoint → its names, canonical name first then the aliases, as
 * `{"code_to_names": {...}}`. The mobile app (zulip-flutter `ServerEmojiData`) builds its emoji
 * picker and autocomplete from it.
 */
export function serverEmojiData(): { code_to_names: Record<string, string[]> } {
  const codeToNames: Record<string, string[]> = {};
  for (const [code, { canonical_name, aliases }] of Object.entries(emojiNames as Record<string, EmojiNameEntry>)) {
    codeToNames[code] = [canonical_name, ...aliases];
  }
  return { code_to_names: codeToNames };
}
