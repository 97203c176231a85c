/**
 * Static parts of the `POST /register` response: server-level constants as Zulip 11 (feature
 * level 417) reports them (the limits handlers enforce are in `domain/server-limits.ts`, the
 * default personal settings in `domain/user-setting-defaults.ts`). Values are Zulip's defaults
 * (`zproject/default_settings.py`, `zerver/models/users.py` `UserBaseSettings`,
 * `zerver/models/realms.py`) unless a comment says why parley differs (a feature parley does not
 * have is reported as disabled/empty rather than advertised).
 *
 * Everything here is built once at module load and must be treated as read-only: the builders
 * copy (`structuredClone`/spread) before handing values to a response.
 */
/** Default upload limit in MiB (Zulip's `MAX_FILE_UPLOAD_SIZE` default; `--max-file-upload-size-mib`). */
export const DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB = 25;

/** `settings.SERVER_GENERATION`: when this process started (UNIX seconds). */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** Video call providers available without extra server configuration (Zoom/BBB need secrets). */
export const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
} as const;

/** `Realm.GIPHY_RATING_OPTIONS` (`giphy_rating_options`). */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
} as const;

/** `zerver/lib/external_accounts.py` `DEFAULT_EXTERNAL_ACCOUNTS`. */
export const DEFAULT_EXTERNAL_ACCOUNTS = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
} as const;

/** `CustomProfileField.ALL_FIELD_TYPES` as `custom_profile_field_types` (keyword → {id, name}). */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  DATE: { id: 4, name: 'Date' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  URL: { id: 5, name: 'Link' },
  SELECT: { id: 3, name: 'List of options' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  USER: { id: 6, name: 'Users' },
} as const;

/** `UserProfile.emojiset_choices()`. */
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
] as const;

/** `get_available_notification_sounds()`: the `.ogg` files Zulip ships, sorted. */
export const AVAILABLE_NOTIFICATION_SOUNDS = [
  'ascend', 'beep_boop', 'bink', 'bright', 'brlip', 'chime', 'deep tom', 'ding', 'double tap', 'down',
  'dry bongos', 'dutdut', 'fast ascend', 'flute', 'friendly', 'kick roll', 'loud tintong', 'metallic snare',
  'pan', 'practicechat', 'shaker', 'simple', 'stairs', 'subtle', 'swish', 'tintong', 'up', 'wood block',
  'zaping', 'zing', 'zulip',
] as const;


/** Zulip's `Message.EMPTY_TOPIC_FALLBACK_NAME`; parley keeps the realm's value in its settings. */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

/** `MAX_UNREAD_MESSAGES`: `unread_msgs` holds at most the newest this many unread messages. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** `get_starred_message_ids`: the oldest this many starred ids. */
export const MAX_STARRED_MESSAGES = 10_000;
/** `RECENT_CONVERSATIONS_LIMIT`: `recent_private_conversations` looks at the newest this many DMs. */
export const RECENT_CONVERSATIONS_LIMIT = 1000;
