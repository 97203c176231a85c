/**
 * Narrow preprocessing before a fetch (Zulip's `zerver/lib/narrow.py`
 * `clean_narrow_for_message_fetch`, `ok_to_include_history`, `can_access_stream_history`): the
 * empty-topic display name, the `with` operator, and whether messages without a UserMessage row
 * (channel history) may appear. Compiling the cleaned terms is `narrow.ts`.
 */
import { ZulipError } from '../errors.js';
import { CHANNEL_OPERATORS, CHANNELS_OPERATORS, badNarrow, badNarrowCombination, type NarrowTerm } from './narrow-parse.js';
import { Role, type RealmState, type Stream, type User } from './realm-state.js';
import { canAccessMessage, canAccessStreamHistory } from './access.js';
import { findStreamByName } from './streams.js';

/** Whether the remaining terms name one conversation (Zulip's `can_narrow_define_conversation`). */
function definesConversation(terms: readonly NarrowTerm[]): boolean {
  let channel = false;
  let topic = false;
  for (const t of terms) {
    if (t.operator === 'dm' || t.operator === 'pm-with') return true;
    if (t.operator === 'stream' || t.operator === 'channel') channel = true;
    else if (t.operator === 'topic') topic = true;
    if (channel && topic) return true;
  }
  return false;
}

/**
 * Zulip's `clean_narrow_for_message_fetch`: the first `topic` operand equal to the realm's
 * empty-topic display name ("general chat") becomes the empty topic; a `with:<message id>` term
 * is replaced by the conversation of that message (its channel and topic, or its direct-message
 * members), dropping other channel/topic/dm terms. When the message is not accessible the `with`
 * term is dropped if the rest still names a conversation, else `Invalid 'with' operator`.
 * Two `with` terms: `Invalid narrow operator combination: Duplicate 'with' operators.`
 * Returns new terms (the input is not modified).
 */
export function cleanNarrow(state: RealmState, viewer: User, narrow: readonly NarrowTerm[] | null): NarrowTerm[] | null | ZulipError {
  if (narrow === null) return null;
  let terms = narrow.map((t) => ({ ...t }));
  const topicTerm = terms.find((t) => t.operator === 'topic');
  if (topicTerm !== undefined && topicTerm.operand === state.settings.emptyTopicDisplayName) topicTerm.operand = '';

  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length > 1) return badNarrowCombination("Duplicate 'with' operators.");
  if (withTerms.length === 0) return terms;
  terms = terms.filter((t) => t !== withTerms[0]);
  const operand = withTerms[0]!.operand;
  const text = typeof operand === 'string' ? operand.trim() : String(operand);
  if (!/^[+-]?\d+$/.test(text)) return badNarrow("Invalid 'with' operator");
  const messageId = Number(text);
  if (!canAccessMessage(state, viewer, messageId)) {
    return definesConversation(terms) ? terms : badNarrow("Invalid 'with' operator");
  }
  const rest = terms.filter((t) => !['stream', 'channel', 'topic', 'dm', 'pm-with'].includes(t.operator));
  const recipient = state.recipients.get(state.messages.recipient.get(messageId))!;
  if (recipient.type === 'stream') {
    const topic = state.topics.value(state.messages.topic.get(messageId));
    return [
      { operator: 'channel', operand: recipient.streamId, negated: false },
      { operator: 'topic', operand: topic, negated: false },
      ...rest,
    ];
  }
  return [{ operator: 'dm', operand: [...recipient.userIds], negated: false }, ...rest];
}

/**
 * Zulip's `ok_to_include_history`: true when a positive channel term names a channel whose
 * history the viewer may read (the last such term decides), or a positive `channels:public` /
 * `channels:web-public` term is given by a non-guest; but never when any `is` term other than
 * `is:resolved` is present (those are UserMessage properties).
 */
export function includesHistory(state: RealmState, viewer: User, terms: readonly NarrowTerm[] | null): boolean {
  if (terms === null) return false;
  let include = false;
  for (const t of terms) {
    if (CHANNEL_OPERATORS.has(t.operator) && !t.negated) {
      let stream: Stream | undefined;
      if (typeof t.operand === 'string') stream = findStreamByName(state, t.operand);
      else if (typeof t.operand === 'number') stream = state.streams.get(t.operand);
      include = stream !== undefined && canAccessStreamHistory(state, viewer, stream);
    } else if (
      CHANNELS_OPERATORS.has(t.operator) &&
      (t.operand === 'public' || t.operand === 'web-public') &&
      !t.negated &&
      viewer.role !== Role.guest
    ) {
      include = true;
    }
  }
  for (const t of terms) if (t.operator === 'is' && t.operand !== 'resolved') include = false;
  return include;
}
