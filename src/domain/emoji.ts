/**
 * Zulip's Unicode emoji names (`zerver/lib/emoji.py` data: `emoji_names.json`, Apache-2.0, copied
 * verbatim from Zulip into `src/domain/emoji_names.json`): codepoint (hex, `-`-joined, e.g.
 * `1f697`, `0023-20e3`) → `{canonical_name, aliases}`.
 *
 * Loaded once, lazily, on first use. The JSON is read from next to this module (`src/domain/`
 * under tsx) or, from the compiled `dist/domain/`, from `src/domain/` (tsc does not copy it).
 * Shared with the Markdown renderer (`:name:` emoji), which should use `unicodeEmojiCodeByName`.
 */
import { existsSync, readFileSync } from 'node:fs';

interface EmojiTables {
  /** Canonical names and aliases → codepoint. */
  nameToCode: Map<string, string>;
  /** Codepoint → canonical name. */
  codeToName: Map<string, string>;
}

let tables: EmojiTables | null = null;

function load(): EmojiTables {
  if (tables !== null) return tables;
  const here = new URL('./emoji_names.json', import.meta.url);
  const fromDist = new URL('../../src/domain/emoji_names.json', import.meta.url);
  const file = existsSync(here) ? here : fromDist;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { canonical_name: string; aliases: string[] }>;
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const [code, { canonical_name, aliases }] of Object.entries(raw)) {
    codeToName.set(code, canonical_name);
    nameToCode.set(canonical_name, code);
    for (const alias of aliases) if (!nameToCode.has(alias)) nameToCode.set(alias, code);
  }
  tables = { nameToCode, codeToName };
  return tables;
}

/** The codepoint of a Unicode emoji name (canonical or alias), e.g. `car` → `1f697`. */
export function unicodeEmojiCodeByName(name: string): string | undefined {
  return load().nameToCode.get(name);
}

/** The canonical name of a Unicode emoji codepoint, or undefined when Zulip does not know it. */
export function unicodeEmojiNameByCode(code: string): string | undefined {
  return load().codeToName.get(code);
}

/** `reaction_type` values (seed §2.1). */
export const ReactionType = {
  unicode: 'unicode_emoji',
  realm: 'realm_emoji',
  zulipExtra: 'zulip_extra_emoji',
} as const;

/**
 * Zulip's `emoji_name_to_emoji_code` (without `realm_emoji`: parley has no custom emoji yet, so
 * the realm's emoji table is empty): the (code, type) of a name, or null when it does not exist.
 */
export function emojiCodeByName(name: string): { code: string; type: string } | null {
  if (name === 'zulip') return { code: 'zulip', type: ReactionType.zulipExtra };
  const code = unicodeEmojiCodeByName(name);
  return code === undefined ? null : { code, type: ReactionType.unicode };
}

/**
 * Zulip's `check_emoji_request` (zulip-behavior.md §7.1 step 4): the error message for an
 * invalid (name, code, type) triple, or null when valid. `realm_emoji` always fails with
 * "Invalid custom emoji." because the realm has no custom emoji.
 */
export function checkEmoji(name: string, code: string, type: string): string | null {
  switch (type) {
    case ReactionType.realm:
      return 'Invalid custom emoji.';
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
