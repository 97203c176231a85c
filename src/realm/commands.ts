/**
 * Commands: inputs to a realm actor, imperative (DESIGN.md §2). xstate calls every actor input an
 * "event"; in this codebase those inputs are commands, and "event" means only a Zulip client
 * event delivered through `GET /events`.
 *
 * Each command type maps to one handler in `realm/handlers/` and one reply type below.
 */
import type { RoleCode } from '../domain/realm-state.js';

export interface CreateRealm {
  type: 'create_realm';
  subdomain: string;
  name: string;
  description: string;
}

export interface CreateUser {
  type: 'create_user';
  email: string;
  fullName: string;
  role: RoleCode;
  /** argon2id hash computed by the caller (off the actor's critical path), or null. */
  passwordHash: string | null;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  timezone: string;
}

export interface CreateStream {
  type: 'create_stream';
  /** Acting user, or null for system setup (demo data, CLI). */
  actorId: number | null;
  name: string;
  description: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  /** Undefined = Zulip's default (public: true; private: false). */
  historyPublicToSubscribers?: boolean;
  isDefault: boolean;
  subscriberIds: number[];
}

export interface Subscribe {
  type: 'subscribe';
  streamId: number;
  userIds: number[];
}

export interface SendMessage {
  type: 'send_message';
  senderId: number;
  /** `stream` (also for wire `channel`) or `private` (also for wire `direct`). */
  messageType: 'stream' | 'private';
  /** The decoded `to` parameter: name, id, or a list (zulip-behavior.md §2.1). */
  to: unknown;
  /** Stripped topic; undefined when the client passed none. */
  topic: string | undefined;
  content: string;
  client: string;
  /** Undefined = Zulip's heuristic on the client name. */
  readBySender?: boolean;
  queueId?: string;
  localId?: string;
}

/** A typing notification: no records, only `typing` events (zulip-behavior.md §10.4). */
export interface Typing {
  type: 'typing';
  senderId: number;
  op: 'start' | 'stop';
  messageType: 'direct' | 'stream';
  /** Direct: recipient user ids. */
  to?: number[];
  /** Channel: the channel and topic. */
  streamId?: number;
  topic?: string;
}

export type Command = CreateRealm | CreateUser | CreateStream | Subscribe | SendMessage | Typing;

/** The reply each command type yields on success. */
export interface CommandReplies {
  create_realm: Record<string, never>;
  create_user: { userId: number; apiKey: string };
  create_stream: { streamId: number };
  subscribe: Record<string, never>;
  send_message: { id: number; automatic_new_visibility_policy?: number };
  typing: Record<string, never>;
}

export type CommandReply<C extends Command> = CommandReplies[C['type']];
