/**
 * Emoji reactions (https://zulip.com/api/get-message `reactions`; Zulip's `zerver/models/reactions.py`,
 * `zerver/actions/reactions.py`): per message, the list of (user, emoji) pairs in the order they
 * were added — the order Zulip reports them ("ordered chronologically from oldest to newest").
 * A user reacts at most once per (emoji_code, reaction_type) on a message.
 *
 * State shape (`RealmState.reactions`, optional: states built by hand and snapshots written before
 * reactions lack it = no reactions), compact for millions of messages (src/README.md: persistence):
 * - `emoji`: interned emoji triples `reaction_type \0 emoji_code \0 emoji_name` (a few hundred
 *   distinct values per realm), so one reaction costs two small integers;
 * - `byMessage`: message id → flat `[userId, emojiId, userId, emojiId, …]` in reaction order;
 *   a message without reactions has no entry.
 */
import { Interner } from './interner.js';
import { Flag } from './message-index.js';
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** One reaction, decoded. */
export interface Reaction {
  userId: number;
  emojiName: string;
  emojiCode: string;
  /** `unicode_emoji`, `realm_emoji` or `zulip_extra_emoji` (see `emoji.ts` `ReactionType`). */
  reactionType: string;
}

/** The reactions of a realm (see the module comment). */
export interface ReactionState {
  emoji: Interner;
  byMessage: Map<number, number[]>;
}

/**
 * A user reacted to a message. `historical`: the user had no UserMessage row for it (a channel
 * message they never received), so, as Zulip's `create_historical_user_messages`, a row with
 * flags `read` + `historical` is created too.
 */
export interface ReactionAdded {
  type: 'reaction_added';
  v: 1;
  messageId: number;
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
  historical?: true;
}

/** A user removed their reaction (identified by emoji code and type) from a message. */
export interface ReactionRemoved {
  type: 'reaction_removed';
  v: 1;
  messageId: number;
  userId: number;
  emojiCode: string;
  reactionType: string;
}

export type ReactionRecord = ReactionAdded | ReactionRemoved;

const SEP = '\u0000';

function decodeEmoji(state: ReactionState, emojiId: number): { type: string; code: string; name: string } {
  const [type = '', code = '', name = ''] = state.emoji.value(emojiId).split(SEP);
  return { type, code, name };
}

/** The message's reactions in order ([] when none). */
export function reactionsOf(state: RealmState, messageId: number): Reaction[] {
  const rs = state.reactions;
  const flat = rs?.byMessage.get(messageId);
  if (rs === undefined || flat === undefined) return [];
  const out: Reaction[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const { type, code, name } = decodeEmoji(rs, flat[i + 1]!);
    out.push({ userId: flat[i]!, emojiName: name, emojiCode: code, reactionType: type });
  }
  return out;
}

/** Whether the message has any reaction (`has:reaction`). */
export function hasReactions(state: RealmState, messageId: number): boolean {
  return state.reactions?.byMessage.has(messageId) ?? false;
}

/** The user's reaction with this (code, type) on the message, or undefined. */
export function findUserReaction(
  state: RealmState,
  messageId: number,
  userId: number,
  emojiCode: string,
  reactionType: string,
): Reaction | undefined {
  return reactionsOf(state, messageId).find(
    (r) => r.userId === userId && r.emojiCode === emojiCode && r.reactionType === reactionType,
  );
}

/**
 * The name of an existing reaction with this (code, type) on the message by anyone, or undefined.
 * Zulip treats a new reaction with the same code as a vote for it, under the earlier name.
 */
export function existingEmojiName(state: RealmState, messageId: number, emojiCode: string, reactionType: string): string | undefined {
  return reactionsOf(state, messageId).find((r) => r.emojiCode === emojiCode && r.reactionType === reactionType)?.emojiName;
}

/**
 * Wire form (https://zulip.com/api/get-message Reaction; FL 328 removed the `user` object from
 * message objects).
 */
export interface ReactionWire {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** The message's `reactions` list as in message objects. */
export function reactionsWire(state: RealmState, messageId: number): ReactionWire[] {
  return reactionsOf(state, messageId).map((r) => ({
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
    user_id: r.userId,
  }));
}

/** `evolve` of the reaction records. */
export function evolveReactions(state: RealmState, r: ReactionRecord): void {
  const rs = (state.reactions ??= { emoji: new Interner(), byMessage: new Map() });
  switch (r.type) {
    case 'reaction_added': {
      const emojiId = rs.emoji.intern([r.reactionType, r.emojiCode, r.emojiName].join(SEP));
      const flat = rs.byMessage.get(r.messageId);
      if (flat === undefined) rs.byMessage.set(r.messageId, [r.userId, emojiId]);
      else flat.push(r.userId, emojiId);
      if (r.historical === true) state.messages.userMessages(r.userId).insert(r.messageId, Flag.read | Flag.historical);
      return;
    }
    case 'reaction_removed': {
      const flat = rs.byMessage.get(r.messageId);
      if (flat === undefined) return;
      for (let i = 0; i < flat.length; i += 2) {
        if (flat[i] !== r.userId) continue;
        const { type, code } = decodeEmoji(rs, flat[i + 1]!);
        if (type !== r.reactionType || code !== r.emojiCode) continue;
        flat.splice(i, 2);
        break;
      }
      if (flat.length === 0) rs.byMessage.delete(r.messageId);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form (see realm-snapshot.ts; absent in snapshots written before reactions: none). */
export interface ReactionsCore {
  emoji: readonly string[];
  messages: Array<[messageId: number, flat: number[]]>;
}

export function reactionsToCore(state: RealmState): ReactionsCore | undefined {
  const rs = state.reactions;
  if (rs === undefined || rs.byMessage.size === 0) return undefined;
  return { emoji: rs.emoji.toArray(), messages: [...rs.byMessage] };
}

/** Restores `state.reactions` (`undefined` = an older snapshot, or no reactions). */
export function reactionsFromCore(state: RealmState, core: ReactionsCore | undefined): void {
  state.reactions = {
    emoji: core === undefined ? new Interner() : Interner.fromArray(core.emoji),
    byMessage: new Map((core?.messages ?? []).map(([id, flat]) => [id, [...flat]])),
  };
}
