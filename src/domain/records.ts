/**
 * Records: the persisted facts of the append log (DESIGN.md §2), past tense, each with a schema
 * version `v`. `evolve` folds them into `RealmState`. A record, once written, must load forever:
 * never change the meaning of an existing `(type, v)`; add a new `v` and upgrade in `evolve`.
 *
 * Units: timestamps are UNIX seconds (fractional allowed where noted).
 */
import type { GroupSettingValue, RoleCode, StreamGroupSetting, TopicsPolicy } from './realm-state.js';

export interface SystemGroupData {
  id: number;
  name: string;
  description: string;
}

/** The organization came into being with its system groups. */
export interface RealmCreated {
  type: 'realm_created';
  v: 1;
  subdomain: string;
  name: string;
  description: string;
  /** UNIX seconds. */
  dateCreated: number;
  systemGroups: SystemGroupData[];
  /** Realm-level group-setting values, keyed by wire name. */
  groups: Record<string, GroupSettingValue>;
}

/** A user or bot account was created. */
export interface UserCreated {
  type: 'user_created';
  v: 1;
  id: number;
  email: string;
  fullName: string;
  role: RoleCode;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  /** UNIX seconds, fractional. */
  dateJoined: number;
  timezone: string;
  apiKey: string;
  passwordHash: string | null;
}

/** A channel was created. */
export interface StreamCreated {
  type: 'stream_created';
  v: 1;
  id: number;
  recipientId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: number;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isDefault: boolean;
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  groups: Record<StreamGroupSetting, GroupSettingValue>;
}

/** Users were subscribed to a channel, each with the color assigned to them. */
export interface SubscriptionsAdded {
  type: 'subscriptions_added';
  v: 1;
  streamId: number;
  subscriptions: Array<{ userId: number; color: string }>;
}

/**
 * A message was sent. Content and rendered HTML are in the record (replay never re-renders);
 * the actor also writes them to the bodies table in the same transaction.
 * Who receives a UserMessage row is derived in `evolve` from the state at that point
 * (channel subscribers, or the conversation's members), which replay reproduces exactly.
 */
export interface MessageSent {
  type: 'message_sent';
  v: 1;
  id: number;
  senderId: number;
  recipientId: number;
  /** Present when this message opened a new direct conversation: its sorted member ids. */
  newDirectUserIds?: number[];
  topic: string;
  content: string;
  rendered: string;
  /** UNIX seconds. */
  timestamp: number;
  client: string;
  isMeMessage: boolean;
  readBySender: boolean;
  /** Extra flag bits per recipient user id (mentions), from rendering. */
  userFlags?: Record<number, number>;
}

export type RealmRecord = RealmCreated | UserCreated | StreamCreated | SubscriptionsAdded | MessageSent;

/** Body row of the LMDB bodies table, keyed by message id. */
export interface MessageBody {
  content: string;
  rendered: string;
}
