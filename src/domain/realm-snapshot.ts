/**
 * Realm state ⇄ snapshot parts (src/README.md: persistence). The snapshot "core" is a plain msgpack-able
 * object holding everything but the message columns; the columns (realm-wide message attributes
 * and per-user UserMessage lists) are persisted chunk by chunk by the snapshot store, which
 * rewrites only chunks changed since the previous snapshot.
 *
 * `CORE_VERSION` must be bumped, with an upgrade path in `fromSnapshot`, whenever the core's
 * shape changes.
 */
import { Column } from './column.js';
import { Interner } from './interner.js';
import { MessageIndex, UserMessages } from './message-index.js';
import { emptyRealmState, type RealmState, type UserGroup } from './realm-state.js';
import { PresenceStore, type PresenceCore } from './presence.js';
import { userTopicsFromCore, userTopicsToCore, type UserTopicsCore } from './user-topics.js';
import { linkifiersFromCore, linkifiersToCore, type LinkifiersCore } from './linkifiers.js';
import { invitesFromCore, invitesToCore } from './invites.js';
import { profileFieldsFromCore, profileFieldsToCore, type ProfileFieldsCore } from './custom-profile-fields.js';
import { userStatusFromCore, userStatusToCore, type UserStatusCore } from './user-status.js';
import { navigationViewsFromCore, navigationViewsToCore, type NavigationViewsCore } from './navigation-views.js';
import { channelFoldersFromCore, channelFoldersToCore, type ChannelFoldersCore } from './channel-folders.js';
import { draftsFromCore, draftsToCore, type DraftsCore } from './drafts.js';
import { submessagesFromCore, submessagesToCore } from './submessages.js';
import { scheduledMessagesFromCore, scheduledMessagesToCore, type ScheduledMessagesCore } from './scheduled-messages.js';
import { attachmentsFromCore, attachmentsToCore, type AttachmentsCore } from './attachments.js';
import { reactionsFromCore, reactionsToCore, type ReactionsCore } from './reactions.js';
import { editHistoryFromCore, editHistoryToCore, type EditHistoryCore } from './message-edits.js';
import type { RealmDomain } from './realm-domains.js';
import { botStorageFromCore, botStorageToCore } from './bot-storage.js';
import { playgroundsFromCore, playgroundsToCore, type PlaygroundState } from './realm-playgrounds.js';
import { realmEmojiFromCore, realmEmojiToCore, type RealmEmojiCore } from './realm-emoji.js';
import { sessionsFromCore, sessionsToCore, type SessionsCore } from './sessions.js';
import { MessageWordIndex } from './message-word-index.js';
import { mutedUsersFromCore, mutedUsersToCore, type MutedUsersCore } from './muted-users.js';
import { alertWordsFromCore, alertWordsToCore, type AlertWordsCore } from './alert-words.js';
import { savedSnippetsFromCore, savedSnippetsToCore, type SavedSnippetsCore } from './saved-snippets.js';
import { pushDevicesFromCore, pushDevicesToCore, type PushDevicesCore } from './push-devices.js';

export const CORE_VERSION = 1;

type GroupCore = Omit<UserGroup, 'directMembers' | 'directSubgroups'> & {
  directMembers: number[];
  directSubgroups: number[];
};

/** The core part of a snapshot. */
export interface RealmCore {
  version: number;
  subdomain: string;
  created: boolean;
  settings: RealmState['settings'];
  users: Array<RealmState['users'] extends Map<number, infer U> ? U : never>;
  groups: GroupCore[];
  streams: Array<RealmState['streams'] extends Map<number, infer S> ? S : never>;
  subscriptions: Array<[streamId: number, entries: Array<[userId: number, sub: unknown]>]>;
  recipients: Array<[id: number, recipient: unknown]>;
  topics: readonly string[];
  clients: readonly string[];
  nextIds: RealmState['nextIds'];
  /** User ids that have UserMessage columns. */
  userMessageOwners: number[];
  /** Topic visibility rows (absent in snapshots written before user topics: none). */
  userTopics?: UserTopicsCore;
  /** Linkifiers (absent in snapshots written before linkifiers, or when there are none). */
  linkifiers?: LinkifiersCore;
  /** Reusable invitation links (absent in snapshots written before invitations, or when there are none). */
  invites?: import('./invites.js').InvitesCore;
  /** Custom profile fields and values (absent in snapshots written before them: none). */
  profileFields?: ProfileFieldsCore;
  /** Non-default user statuses (absent in snapshots written before user status: none). */
  userStatus?: UserStatusCore;
  /** Navigation views (absent in snapshots written before navigation views: none). */
  navigationViews?: NavigationViewsCore;
  /** Channel folders (absent in snapshots written before channel folders, or when there are none). */
  channelFolders?: ChannelFoldersCore;
  /** Drafts (absent in snapshots written before drafts, or before the first draft: none). */
  drafts?: DraftsCore;
  /** Scheduled messages and reminders (absent in snapshots written before them, or before the first: none). */
  scheduledMessages?: ScheduledMessagesCore;
  /** The organization icon (absent in snapshots written before it, or never changed: the default). */
  realmIcon?: import('./realm-icon.js').RealmIcon;
  /** Widget submessages (absent in snapshots written before them, or before the first: none). */
  submessages?: import('./submessages.js').SubmessagesCore;
  /** Uploaded files (absent in snapshots written before uploads, or before the first upload: none). */
  attachments?: AttachmentsCore;
  /** Emoji reactions (absent in snapshots written before reactions, or when there are none). */
  reactions?: ReactionsCore;
  /** Presence store (absent in snapshots written before presence: empty). */
  presence?: PresenceCore;
  /** Message edit histories (absent in snapshots written before message edits: none). */
  editHistory?: EditHistoryCore;
  /** Code playgrounds (absent in snapshots written before playgrounds, or when none was added). */
  playgrounds?: PlaygroundState;
  /** New users' setting defaults (absent in snapshots written before them, or when never changed). */
  userDefaults?: Record<string, string | number | boolean>;
  /** Allowed email domains (absent in snapshots written before them, or when none was added). */
  realmDomains?: RealmDomain[];
  /** Bot storage (absent in snapshots written before it, or when empty). */
  botStorage?: Array<[number, Array<[string, string]>]>;
  /** Custom emoji (absent in snapshots written before custom emoji, or when there are none). */
  realmEmoji?: RealmEmojiCore;
  /** Web sessions (absent in snapshots written before sessions, or before the first login: none). */
  sessions?: SessionsCore;
  /** Muted users (absent in snapshots written before muted users: none). */
  mutedUsers?: MutedUsersCore;
  /** Alert words (absent in snapshots written before alert words: none). */
  alertWords?: AlertWordsCore;
  /** Saved snippets (absent in snapshots written before them, or before the first one: none). */
  savedSnippets?: SavedSnippetsCore;
  /** Mobile push devices (absent in snapshots written before them: none). */
  pushDevices?: PushDevicesCore;
}

/**
 * One optional part of `RealmCore`: written from the state, and read back into a fresh state
 * (`undefined` when the snapshot was written before the part existed, or when it was empty).
 */
interface CorePart<T> {
  toCore(state: RealmState): T | undefined;
  fromCore(state: RealmState, core: T | undefined): void;
}

/** A part that is a state field stored as is; restored only when the snapshot has it (else the empty state's default stays). */
function stateField<K extends 'userDefaults' | 'realmDomains'>(key: K): CorePart<NonNullable<RealmState[K]>> {
  return {
    toCore: (state) => state[key] as NonNullable<RealmState[K]> | undefined,
    fromCore: (state, value) => {
      if (value !== undefined) state[key] = value;
    },
  };
}

/** The optional keys of `RealmCore`. */
type OptionalCoreKey = { [K in keyof RealmCore]-?: undefined extends RealmCore[K] ? K : never }[keyof RealmCore];

/** Every optional part, in the order they are written and restored (a new part must be listed: the type says so). */
const CORE_PARTS: { [K in OptionalCoreKey]: CorePart<NonNullable<RealmCore[K]>> } = {
  userTopics: { toCore: userTopicsToCore, fromCore: userTopicsFromCore },
  linkifiers: { toCore: linkifiersToCore, fromCore: linkifiersFromCore },
  invites: { toCore: invitesToCore, fromCore: invitesFromCore },
  profileFields: { toCore: profileFieldsToCore, fromCore: profileFieldsFromCore },
  userStatus: { toCore: userStatusToCore, fromCore: userStatusFromCore },
  navigationViews: { toCore: navigationViewsToCore, fromCore: navigationViewsFromCore },
  channelFolders: { toCore: channelFoldersToCore, fromCore: channelFoldersFromCore },
  drafts: { toCore: draftsToCore, fromCore: draftsFromCore },
  scheduledMessages: { toCore: scheduledMessagesToCore, fromCore: scheduledMessagesFromCore },
  realmIcon: {
    toCore: (state) => state.realmIcon,
    fromCore: (state, icon) => {
      if (icon !== undefined && icon !== null) state.realmIcon = { ...icon };
      else delete state.realmIcon;
    },
  },
  submessages: { toCore: submessagesToCore, fromCore: submessagesFromCore },
  attachments: { toCore: attachmentsToCore, fromCore: attachmentsFromCore },
  reactions: { toCore: reactionsToCore, fromCore: reactionsFromCore },
  presence: {
    toCore: (state) => state.presence.toCore(),
    fromCore: (state, core) => {
      state.presence = PresenceStore.fromCore(core);
    },
  },
  editHistory: { toCore: editHistoryToCore, fromCore: editHistoryFromCore },
  playgrounds: { toCore: playgroundsToCore, fromCore: playgroundsFromCore },
  userDefaults: stateField('userDefaults'),
  realmDomains: stateField('realmDomains'),
  botStorage: { toCore: botStorageToCore, fromCore: botStorageFromCore },
  realmEmoji: { toCore: realmEmojiToCore, fromCore: realmEmojiFromCore },
  sessions: { toCore: sessionsToCore, fromCore: sessionsFromCore },
  mutedUsers: { toCore: mutedUsersToCore, fromCore: mutedUsersFromCore },
  alertWords: { toCore: alertWordsToCore, fromCore: alertWordsFromCore },
  savedSnippets: { toCore: savedSnippetsToCore, fromCore: savedSnippetsFromCore },
  pushDevices: { toCore: pushDevicesToCore, fromCore: pushDevicesFromCore },
};

const umIds = (userId: number) => `um:ids:${userId}`;
const umFlags = (userId: number) => `um:flags:${userId}`;

/** Splits the state into a core object and named columns. The state is not copied: encode at once. */
export function toSnapshot(state: RealmState): { core: RealmCore; columns: Record<string, Column> } {
  const columns: Record<string, Column> = { ...state.messages.columns() };
  for (const [userId, um] of state.messages.users) {
    columns[umIds(userId)] = um.ids;
    columns[umFlags(userId)] = um.flags;
  }
  const core: RealmCore = {
    version: CORE_VERSION,
    subdomain: state.subdomain,
    created: state.created,
    settings: state.settings,
    users: [...state.users.values()],
    groups: [...state.groups.values()].map((g) => ({
      ...g,
      directMembers: [...g.directMembers],
      directSubgroups: [...g.directSubgroups],
    })),
    streams: [...state.streams.values()],
    subscriptions: [...state.subscriptions].map(([sid, subs]) => [sid, [...subs]]),
    recipients: [...state.recipients],
    topics: state.topics.toArray(),
    clients: state.clients.toArray(),
    nextIds: state.nextIds,
    userMessageOwners: [...state.messages.users.keys()],
  };
  const parts = core as unknown as Record<OptionalCoreKey, unknown>;
  for (const key of Object.keys(CORE_PARTS) as OptionalCoreKey[]) parts[key] = CORE_PARTS[key].toCore(state);
  return { core, columns };
}

/**
 * Bytes of column chunks changed since the last snapshot took them: about what the next
 * snapshot writes besides its core (`Column.dirtyBytes`, whole chunks). Walks the same columns
 * as `toSnapshot`: O(users).
 */
export function dirtyColumnBytes(state: RealmState): number {
  let bytes = 0;
  for (const column of Object.values(state.messages.columns())) bytes += column.dirtyBytes;
  for (const um of state.messages.users.values()) bytes += um.ids.dirtyBytes + um.flags.dirtyBytes;
  return bytes;
}

/** Rebuilds a realm's state from `toSnapshot` output (after a msgpack round trip). */
export function fromSnapshot(id: number, coreObject: object, columns: Record<string, Column>): RealmState {
  const core = coreObject as RealmCore;
  if (core.version !== CORE_VERSION) throw new Error(`unsupported realm snapshot core version ${core.version}`);
  const state = emptyRealmState(id);
  state.subdomain = core.subdomain;
  state.created = core.created;
  state.settings = core.settings;
  for (const u of core.users) {
    state.users.set(u.id, u);
    state.usersByEmail.set(u.email.toLowerCase(), u.id);
    state.usersByApiKey.set(u.apiKey, u.id);
    state.userStreams.set(u.id, new Set());
  }
  for (const g of core.groups) {
    state.groups.set(g.id, { ...g, directMembers: new Set(g.directMembers), directSubgroups: new Set(g.directSubgroups) });
    if (g.isSystemGroup) state.systemGroups.set(g.name, g.id);
  }
  for (const s of core.streams) {
    state.streams.set(s.id, s);
    state.streamsByName.set(s.name.toLowerCase(), s.id);
  }
  for (const [sid, entries] of core.subscriptions) {
    const subs = new Map(entries as Array<[number, never]>);
    state.subscriptions.set(sid, subs);
    for (const userId of subs.keys()) state.userStreams.get(userId)?.add(sid);
  }
  for (const [rid, recipient] of core.recipients) {
    const r = recipient as RealmState['recipients'] extends Map<number, infer R> ? R : never;
    state.recipients.set(rid, r);
    if (r.type === 'direct') state.directRecipients.set(r.userIds.join(','), rid);
  }
  state.topics = Interner.fromArray(core.topics);
  state.clients = Interner.fromArray(core.clients);
  state.nextIds = core.nextIds;
  state.messages = restoreMessages(columns, core.userMessageOwners);
  // The restored messages are not in the word index yet: the realm layer backfills them.
  state.wordIndex = new MessageWordIndex(state.messages.bits.length);
  const parts = CORE_PARTS as Record<OptionalCoreKey, CorePart<unknown>>;
  for (const key of Object.keys(CORE_PARTS) as OptionalCoreKey[]) parts[key].fromCore(state, core[key]);
  return state;
}

function restoreMessages(columns: Record<string, Column>, owners: readonly number[]): MessageIndex {
  const index = new MessageIndex(columns);
  for (const userId of owners) {
    index.users.set(userId, new UserMessages(columns[umIds(userId)], columns[umFlags(userId)]));
  }
  return index;
}
