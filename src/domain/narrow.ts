/**
 * Narrows of `GET /messages` (Zulip's `zerver/lib/narrow.py` at feature level 417, `NarrowBuilder`):
 * compiling the terms into tests on the compact message index plus candidate id lists for the
 * query planner (`realm/queries/message-list.ts`). Parsing the `narrow` parameter is
 * `narrow-parse.ts`, Zulip's preprocessing (empty-topic fallback name, the `with` operator,
 * history) `narrow-clean.ts`; this module re-exports both, so callers import narrow.ts only.
 *
 * Every term is a test that only removes messages (Zulip's NarrowBuilder invariant); which
 * messages the viewer may see at all is decided by the caller (`historyMode` says whether
 * messages without a UserMessage row may appear, as Zulip's `ok_to_include_history`).
 *
 * Errors are `BAD_NARROW` with `"Invalid narrow operator: <desc>"` and a `desc` field, worded at
 * feature level 417 ("channel", not "stream"). Unlike Zulip, a channel the viewer may not even
 * know about (`hasMetadataAccess` false) is reported exactly like a channel that does not exist
 * (`unknown channel <x>`): no existence oracle (src/README.md: errors). Zulip would return an empty list.
 */
import { ZulipError } from '../errors.js';
import {
  MAX_POSSIBLE_MESSAGE_ID,
  RESOLVED_TOPIC_PREFIX,
  badNarrow,
  operandText,
  type NarrowOperand,
  type NarrowTerm,
} from './narrow-parse.js';
// One import point for callers: parsing, cleaning and compiling.
export * from './narrow-parse.js';
export * from './narrow-clean.js';
import { Flag } from './message-index.js';
import type { MessageBody } from './records.js';
import type { RealmState, Stream, User } from './realm-state.js';
import { hasMetadataAccess } from './access.js';
import { findStreamByName } from './streams.js';
import { findUserByEmail } from './users.js';
import { directKey } from './recipients.js';
import { hasReactions } from './reactions.js';
import { messagesWithAttachments } from './attachments.js';
import { matchesSearch, parseSearch, type SearchQuery } from './message-search.js';
import { searchCandidates } from './message-word-index.js';
import { mutedMessageTest, topicPolicyOf } from './narrow-muting.js';
import { VisibilityPolicy } from './user-topics.js';
import { EMPTY_SEQUENCE, mergeSequences, type IdList, type IdSequence, type MessageLookupIndex } from './recipient-index.js';

/** The channel an operand names, if it exists and the viewer may know about it. */
function lookupChannel(state: RealmState, viewer: User, operand: NarrowOperand): Stream | undefined {
  let stream: Stream | undefined;
  if (typeof operand === 'string') stream = findStreamByName(state, operand);
  else if (typeof operand === 'number') stream = state.streams.get(operand);
  return stream !== undefined && hasMetadataAccess(state, viewer, stream) ? stream : undefined;
}

function lookupUser(state: RealmState, operand: NarrowOperand): User | undefined {
  if (typeof operand === 'string') return findUserByEmail(state, operand);
  if (typeof operand === 'number') return state.users.get(operand);
  return undefined;
}

/** A test on one message: `flags` are the viewer's row flags, or read|historical without a row. */
export type MessageTest = (id: number, flags: number) => boolean;
/** A test that needs the stored body. */
export type BodyTest = (id: number, body: MessageBody) => boolean;

/** A candidate id list a positive term implies; `size` is known before materializing. */
export interface CandidateSource {
  readonly size: number;
  sequence(): IdSequence;
}

/** A narrow ready to run. Every message must pass all `tests`, then all `bodyTests`. */
export interface CompiledNarrow {
  /** Column and flag tests, cheap first. */
  readonly tests: readonly MessageTest[];
  /** Tests needing the message body (`has`, `search`). */
  readonly bodyTests: readonly BodyTest[];
  /** Candidate lists implied by positive terms (each a superset of the result). */
  readonly sources: readonly CandidateSource[];
  /** Whether some test reads the viewer's flags. */
  readonly usesFlags: boolean;
  /** Zulip's `is_dm_narrow`: a positive dm / dm-including / group-pm-with / is:dm term. */
  readonly isDmNarrow: boolean;
  /** The first channel term's channel (muting exemption for `first_unread`), or null. */
  readonly channelRecipientId: number | null;
  /** The joined `search` query, or null. */
  readonly search: SearchQuery | null;
}

const MENTION_MASK = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned;

/** `Message.has_link`: the rendered message holds a link. */
const HAS_LINK = /<a\s[^>]*href=/i;
/** `Message.has_image`: set by Zulip's Markdown `add_a` for every inline image preview (`message_inline_image`). */
const HAS_IMAGE = /class="message_inline_image/;

const sourceOf = (list: IdList | undefined): CandidateSource => ({
  size: list?.length ?? 0,
  sequence: () => list ?? EMPTY_SEQUENCE,
});
const NEVER: MessageTest = () => false;

/**
 * Compiles cleaned terms (`cleanNarrow`) for `viewer`, in term order as Zulip's NarrowBuilder
 * (errors come from the first offending term; `search` terms are joined and applied last, and
 * their `negated` is ignored, as in Zulip). Returns the compiled narrow or a BAD_NARROW error:
 * `unknown operator <op>`, `unknown channel <x>`, `unknown channels operand <x>`,
 * `unknown user <x>`, `unknown user in <x>`, `unknown 'is' operand <x>`,
 * `unknown 'in' operand <x>`, `unknown 'has' operand <x>`, `Invalid message ID`,
 * `No message can be both a channel message and direct message`.
 */
export function compileNarrow(
  state: RealmState,
  viewer: User,
  index: MessageLookupIndex,
  terms: readonly NarrowTerm[] | null,
): CompiledNarrow | ZulipError {
  const m = state.messages;
  const tests: MessageTest[] = [];
  const flagTests: MessageTest[] = [];
  const bodyTests: BodyTest[] = [];
  const sources: CandidateSource[] = [];
  const searchOperands: string[] = [];
  let isChannelNarrow = false;
  let isDmNarrow = false;
  let channelRecipientId: number | null = null;
  // Zulip's `in:home` muting (channels and topics, narrow-muting.ts), computed on first use.
  let muted: ((id: number) => boolean) | null | undefined;
  const isMuted = (id: number) => {
    if (muted === undefined) muted = mutedMessageTest(state, viewer, null);
    return muted !== null && muted(id);
  };
  const isDirect = (id: number) => state.recipients.get(m.recipient.get(id))?.type === 'direct';

  /** Zulip's `check_not_both_channel_and_dm_narrow` (negated terms don't count). */
  const mark = (negated: boolean, kind: 'channel' | 'dm'): ZulipError | null => {
    if (negated) return null;
    if (kind === 'channel') isChannelNarrow = true;
    else isDmNarrow = true;
    return isChannelNarrow && isDmNarrow ? badNarrow('No message can be both a channel message and direct message') : null;
  };

  for (const term of terms ?? []) {
    const { operator, operand, negated } = term;
    if (operator === 'search') {
      searchOperands.push(String(operand));
      continue;
    }
    const add = (list: MessageTest[], test: MessageTest) => list.push(negated ? (id, f) => !test(id, f) : test);
    switch (operator) {
      case 'has': {
        const pattern = operand === 'link' ? HAS_LINK : operand === 'image' ? HAS_IMAGE : null;
        if (pattern === null && operand !== 'reaction' && operand !== 'attachment') return badNarrow(`unknown 'has' operand ${operandText(operand)}`);
        if (operand === 'reaction') {
          add(tests, (id) => hasReactions(state, id));
          break;
        }
        if (operand === 'attachment') {
          // `Message.has_attachment`: the message claimed an upload (zerver/actions/uploads.py do_claim_attachments).
          const claimed = messagesWithAttachments(state);
          add(tests, (id) => claimed.has(id));
          break;
        }
        if (pattern === null) break;
        const test: BodyTest = (_id, body) => pattern.test(body.rendered);
        bodyTests.push(negated ? (id, b) => !test(id, b) : test);
        break;
      }
      case 'in': {
        if (operand === 'home') add(tests, (id) => !isMuted(id));
        else if (operand !== 'all') return badNarrow(`unknown 'in' operand ${operandText(operand)}`);
        break;
      }
      case 'is': {
        switch (operand) {
          case 'resolved':
            add(tests, (id) => state.topics.value(m.topic.get(id)).startsWith(RESOLVED_TOPIC_PREFIX));
            break;
          case 'dm':
          case 'private': {
            // A negated is:dm counts as a channel narrow.
            const error = negated ? mark(false, 'channel') : mark(false, 'dm');
            if (error) return error;
            add(tests, isDirect);
            break;
          }
          case 'starred':
            add(flagTests, (_id, f) => (f & Flag.starred) !== 0);
            break;
          case 'unread':
            add(flagTests, (_id, f) => (f & Flag.read) === 0);
            break;
          case 'mentioned':
            add(flagTests, (_id, f) => (f & MENTION_MASK) !== 0);
            break;
          case 'alerted':
            add(flagTests, (_id, f) => (f & Flag.has_alert_word) !== 0);
            break;
          case 'followed':
            add(tests, (id) => topicPolicyOf(state, viewer, id) === VisibilityPolicy.followed);
            break;
          case 'muted':
            // Zulip: `is:muted` is `-in:home`.
            add(tests, isMuted);
            break;
          default:
            return badNarrow(`unknown 'is' operand ${operandText(operand)}`);
        }
        break;
      }
      case 'channel':
      case 'stream': {
        const error = mark(negated, 'channel');
        if (error) return error;
        const stream = lookupChannel(state, viewer, operand);
        if (stream === undefined) return badNarrow(`unknown channel ${operandText(operand)}`);
        const rid = stream.recipientId;
        channelRecipientId ??= rid;
        add(tests, (id) => m.recipient.get(id) === rid);
        if (!negated) sources.push(sourceOf(index.byRecipient.get(rid)));
        break;
      }
      case 'channels':
      case 'streams': {
        const error = mark(negated, 'channel');
        if (error) return error;
        if (operand !== 'public' && operand !== 'web-public') {
          return badNarrow(`unknown channels operand ${operandText(operand)}`);
        }
        const rids = new Set<number>();
        for (const s of state.streams.values()) {
          if (operand === 'public' ? !s.inviteOnly : s.isWebPublic) rids.add(s.recipientId);
        }
        add(tests, (id) => rids.has(m.recipient.get(id)));
        break;
      }
      case 'topic': {
        const error = mark(negated, 'channel');
        if (error) return error;
        const topicIds = index.topicIdsMatching(String(operand));
        const idSet = new Set(topicIds);
        add(tests, (id) => idSet.has(m.topic.get(id)));
        if (!negated) {
          const lists = topicIds.map((tid) => index.byTopic.get(tid)).filter((l): l is IdList => l !== undefined);
          let size = 0;
          for (const l of lists) size += l.length;
          sources.push({ size, sequence: () => mergeSequences(lists) });
        }
        break;
      }
      case 'sender': {
        const sender = lookupUser(state, operand);
        if (sender === undefined) return badNarrow(`unknown user ${operandText(operand)}`);
        const sid = sender.id;
        add(tests, (id) => m.sender.get(id) === sid);
        if (!negated) sources.push(sourceOf(index.bySender.get(sid)));
        break;
      }
      case 'near':
        break;
      case 'id': {
        const text = String(operand);
        if (!/^[0-9]+$/.test(text) || Number(text) > MAX_POSSIBLE_MESSAGE_ID) return badNarrow('Invalid message ID');
        const target = Number(text);
        add(tests, (id) => id === target);
        if (!negated) sources.push({ size: 1, sequence: () => ({ length: 1, get: () => target }) });
        break;
      }
      case 'dm':
      case 'pm-with':
      case 'pm_with': {
        const error = mark(negated, 'dm');
        if (error) return error;
        const users: User[] = [];
        const wanted: Array<string | number> = typeof operand === 'string' ? operand.split(',') : (operand as number[]);
        for (const w of wanted) {
          const user = typeof w === 'string' ? findUserByEmail(state, w) : state.users.get(w);
          if (user === undefined || (typeof w === 'string' && w.trim() === '')) {
            return badNarrow(`unknown user in ${operandText(operand)}`);
          }
          users.push(user);
        }
        if (users.length === 0) {
          add(tests, NEVER);
          break;
        }
        const members = [...new Set([viewer.id, ...users.map((u) => u.id)])].sort((a, b) => a - b);
        const rid = state.directRecipients.get(directKey(members));
        if (rid === undefined) {
          add(tests, NEVER);
          if (!negated) sources.push(sourceOf(undefined));
          break;
        }
        add(tests, (id) => m.recipient.get(id) === rid);
        if (!negated) sources.push(sourceOf(index.byRecipient.get(rid)));
        break;
      }
      case 'dm-including':
      case 'group-pm-with':
      case 'group_pm_with': {
        const error = mark(negated, 'dm');
        if (error) return error;
        const target = lookupUser(state, operand);
        if (target === undefined) return badNarrow(`unknown user ${operandText(operand)}`);
        const tid = target.id;
        const minMembers = operator === 'dm-including' ? 1 : 3;
        const everyDm = operator === 'dm-including' && tid === viewer.id;
        add(tests, (id) => {
          const r = state.recipients.get(m.recipient.get(id));
          if (r === undefined || r.type !== 'direct') return false;
          return everyDm || (r.userIds.length >= minMembers && r.userIds.includes(tid) && r.userIds.includes(viewer.id));
        });
        break;
      }
      default:
        return badNarrow(`unknown operator ${operator}`);
    }
  }

  let search: SearchQuery | null = null;
  if (searchOperands.length > 0) {
    const q = parseSearch(searchOperands.join(' '));
    search = q;
    bodyTests.push((id, body) => {
      const rid = m.recipient.get(id);
      const isChannel = state.recipients.get(rid)?.type === 'stream';
      return matchesSearch(q, body.content, state.topics.value(m.topic.get(id)), isChannel);
    });
    // The messages having every query word (index lists) are a superset of the result.
    const words = state.wordIndex;
    if (words?.complete) {
      if (q.words.length === 0) sources.push(sourceOf(undefined));
      else {
        const { source, test } = searchCandidates(words, q.words);
        sources.push(source);
        if (test !== null) tests.push(test);
      }
    }
  }

  return {
    tests: [...tests, ...flagTests],
    bodyTests,
    sources,
    usesFlags: flagTests.length > 0,
    isDmNarrow,
    channelRecipientId,
    search,
  };
}
