/**
 * The wire shapes the app reads, as far as it reads them (https://zulip.com/api/get-messages,
 * https://zulip.com/api/register-queue). Snake case as on the wire.
 */

/** A reaction on a message (https://zulip.com/api/get-messages `reactions`). */
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** A message as `GET /messages` and `message` events carry it, with `apply_markdown=true`. */
export interface Message {
  id: number;
  type: 'stream' | 'private';
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  avatar_url?: string | null;
  timestamp: number;
  /** Server-rendered, server-sanitized HTML (`rendered_content`). */
  content: string;
  subject: string;
  stream_id?: number;
  display_recipient: string | Array<{ id: number; email: string; full_name: string }>;
  reactions: Reaction[];
  flags: string[];
  last_edit_timestamp?: number;
  /** Local echo only: the text as typed, shown as text until the server's copy arrives. */
  local_text?: string;
  /** Local echo only: the `local_id` sent with it. */
  local_id?: string;
}

/** One narrow term (https://zulip.com/api/construct-narrow). */
export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

/** A subscription row (https://zulip.com/api/get-subscriptions), the keys the app uses. */
export interface Subscription {
  stream_id: number;
  name: string;
  color: string;
  is_muted?: boolean;
}

/** A user row of `realm_users`. */
export interface User {
  user_id: number;
  email: string;
  full_name: string;
  is_bot: boolean;
  is_active?: boolean;
  avatar_url?: string | null;
}

/** Where an unread message lives. */
export type UnreadPlace = { kind: 'stream'; streamId: number; topic: string } | { kind: 'dm'; key: string };

/** The `POST /register` answer, the keys the app reads. */
export interface RegisterResponse {
  queue_id: string;
  last_event_id: number;
  user_id: number;
  full_name: string;
  email: string;
  realm_name?: string;
  subscriptions: Subscription[];
  realm_users: User[];
  unread_msgs: {
    streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
    pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
    huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
    mentions: number[];
  };
  starred_messages: number[];
  recent_private_conversations: Array<{ user_ids: number[]; max_message_id: number }>;
  presences: Record<string, { active_timestamp: number; idle_timestamp: number }>;
  server_timestamp?: number;
  user_settings?: { color_scheme?: number };
}

/** A server event (https://zulip.com/api/get-events); the handlers narrow it by `type`. */
export type ServerEvent = { id: number; type: string; [key: string]: unknown };
