/**
 * The message resource (Zulip's zerver/views/message_send.py, message_fetch.py, message_edit.py,
 * message_delete.py): send, fetch around an anchor, read one, edit or move, delete, its edit
 * history, rendering a preview, and matching ids against a narrow. Writes go through the realm
 * actor; reads are synchronous queries on the realm state plus a memory-mapped body read.
 * Personal flags are in `message-flags.ts`, emoji reactions in `reactions.ts`.
 */
import Type from 'typebox';
import { Errors, ZulipError } from '../errors.js';
import { runCommand, runCommandForReply } from './run-command.js';
import { defineEndpoint, type EndpointOutcome } from './define-endpoint.js';
import { P } from './params.js';
import { accessMessage } from '../domain/access.js';
import { codePointLength, MAX_MESSAGE_LENGTH } from '../domain/messages.js';
import { flagsSuffix, messageJsonPrefix } from '../events/wire/message-json.js';
import { renderMessageContent } from '../realm/message-render.js';
import { OFFLOAD_MIN_CHARS, prerenderContent, prerenderRawContent, type PrerenderedContent } from '../realm/render-offload.js';
import { cleanNarrow, parseNarrow, type NarrowTerm, compileNarrow } from '../domain/narrow.js';
import { fetchMessageList, Selection } from '../realm/queries/message-list.js';
import { MAX_MESSAGES_PER_FETCH, jsonBool, nonNegativeInt, parseAnchor, unwrap } from './message-fetch-params.js';
import { contentVersion, historySnapshots } from '../domain/message-edits.js';
import { STALE_BODY, type EditMessage } from '../realm/handlers/message-edit.js';
import type { SendMessage } from '../realm/commands.js';
import { highlightHtmlDifferences } from '../domain/html-diff.js';
import { messageLookupIndex } from '../domain/recipient-index.js';
import { escapeTopicHtml, highlightHtml, highlightTopic } from '../domain/message-search.js';
import { isDamagedBody } from '../realm/damaged-body.js';
import { durableRead } from './durable-read.js';
import { RawJson } from './raw-json.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';
import type { MessageBody } from '../domain/records.js';

/** Wire `type` → internal message type (`channel`/`direct` are the FL 248/174 names). */
const MESSAGE_TYPES: Record<string, 'stream' | 'private'> = {
  stream: 'stream',
  channel: 'stream',
  private: 'private',
  direct: 'private',
};

/**
 * `POST /messages`: sends a channel or direct message (Zulip's zerver/views/message_send.py
 * `send_message_backend`).
 */
export const sendMessage = defineEndpoint({
  auth: 'user',
  allowIncomingWebhookBots: true,
  params: {
    type: P.string({ required: true }),
    to: P.jsonOrString(),
    topic: P.string({ aliases: ['subject'] }),
    content: P.string({ required: true }),
    queue_id: P.string(),
    local_id: P.string(),
    read_by_sender: P.bool(),
  },
  handler: ({ realm, user, params, clientName }) => {
    const messageType = MESSAGE_TYPES[params.type];
    if (messageType === undefined) return Errors.invalidType();
    if (params.queue_id !== undefined && params.local_id === undefined) return Errors.localIdRequired();
    // Only large contents are rendered off-thread first (render-offload.ts); the others go to the
    // actor at once, without waiting on a pre-render promise that has nothing to do.
    if (params.content.length < OFFLOAD_MIN_CHARS) return sendCommand(realm, user.id, messageType, params, clientName, undefined);
    return prerenderRawContent(realm, user.id, params.content, Date.now() / 1000).then((prerendered) =>
      sendCommand(realm, user.id, messageType, params, clientName, prerendered),
    );
  },
});

/**
 * Runs `send_message` for `POST /messages`; the body is the handler's reply (`id`,
 * `automatic_new_visibility_policy`). The command is one literal of a fixed shape (absent options
 * are undefined, which the handler reads as absent): no spread copies per send.
 */
function sendCommand(
  realm: RealmHandle,
  senderId: number,
  messageType: 'stream' | 'private',
  params: { to?: unknown; topic?: string; content: string; queue_id?: string; local_id?: string; read_by_sender?: boolean },
  client: string,
  prerendered: PrerenderedContent | undefined,
): Promise<EndpointOutcome> {
  const command: SendMessage = {
    type: 'send_message',
    senderId,
    messageType,
    to: params.to,
    topic: params.topic,
    content: params.content,
    client,
    readBySender: params.read_by_sender,
    queueId: params.queue_id,
    localId: params.local_id,
    prerendered,
  };
  return runCommandForReply(realm, command);
}

/**
 * `GET /messages/{message_id}`: one message with its raw Markdown (Zulip's
 * zerver/views/message_edit.py `json_fetch_raw_message`).
 */
export const getMessage = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  dialect: 'typed',
  params: {
    apply_markdown: P.bool({ default: true }),
    allow_empty_topic_name: P.bool({ default: false }),
  },
  handler: ({ realm, user, params, path }) =>
    durableRead(realm, () => {
      const id = path.message_id;
      const state = realm.state;
      const body = readableBody(realm, user, id);
      if (body instanceof ZulipError) return body;
      const view = { applyMarkdown: params.apply_markdown, clientGravatar: false, allowEmptyTopicName: params.allow_empty_topic_name };
      const prefix = messageJsonPrefix(state, id, () => body, view)!;
      return { raw_content: body.content, message: new RawJson([prefix, flagsSuffix(state, user, id)]) };
    }),
});

/**
 * `POST /messages/render`: renders Markdown without sending it (Zulip's zerver/views/message_send.py
 * `render_message_backend`).
 */
export const renderMessage = defineEndpoint({
  auth: 'user',
  params: { content: P.string({ required: true }) },
  // The seed bounds `content` by max_message_length (Zulip renders whatever it gets, under a
  // 5 s timeout): longer content is refused before rendering, so a preview costs at most what a send does.
  // Large contents render on a worker thread (realm/render-offload.ts), then are verified here.
  handler: async ({ realm, user, params }) => {
    if (codePointLength(params.content) > MAX_MESSAGE_LENGTH) return Errors.parameterTooLong('content', MAX_MESSAGE_LENGTH);
    const nowSeconds = Date.now() / 1000;
    const prerendered = await prerenderContent(realm, user.id, params.content, nowSeconds);
    const rendering = renderMessageContent(realm.state, params.content, { senderId: user.id, nowSeconds }, prerendered);
    return rendering instanceof ZulipError ? rendering : { rendered: rendering.rendered };
  },
});

/**
 * `GET /messages`: fetch messages around an anchor, optionally narrowed
 * (https://zulip.com/api/get-messages; Zulip's `get_messages_backend` at feature level 417, with
 * the parameter errors of its `REQ` form).
 *
 * Parameters are decoded in Zulip's declaration order, so that the first bad one is the one
 * reported: `anchor`, `include_anchor`, `num_before`, `num_after`, `narrow`,
 * `use_first_unread_anchor`, `client_gravatar`, `apply_markdown`, `allow_empty_topic_name`.
 * Then: the anchor value, the narrow's `with` / empty-topic preprocessing, the 5000-message cap,
 * the excluded-anchor rule, and finally the narrow's terms (BAD_NARROW) and the query itself
 * (`realm/queries/message-list.ts`), which runs synchronously on the realm state.
 */
export const getMessages = defineEndpoint({
  auth: 'user',
  params: {
    anchor: P.string(),
    include_anchor: P.string(),
    num_before: P.string(),
    num_after: P.string(),
    narrow: P.string(),
    use_first_unread_anchor: P.string(),
    client_gravatar: P.string(),
    apply_markdown: P.string(),
    allow_empty_topic_name: P.string(),
  },
  handler: ({ realm, user, params }) => {
    const includeAnchor = jsonBool('include_anchor', params.include_anchor, true);
    const numBefore = nonNegativeInt('num_before', params.num_before);
    const numAfter = nonNegativeInt('num_after', params.num_after);
    const narrow: NarrowTerm[] | null = params.narrow === undefined ? null : unwrap(parseNarrow(params.narrow));
    const useFirstUnread = jsonBool('use_first_unread_anchor', params.use_first_unread_anchor, false);
    const clientGravatar = jsonBool('client_gravatar', params.client_gravatar, true);
    const applyMarkdown = jsonBool('apply_markdown', params.apply_markdown, true);
    const allowEmptyTopicName = jsonBool('allow_empty_topic_name', params.allow_empty_topic_name, false);

    const anchor = parseAnchor(params.anchor, useFirstUnread);
    return durableRead(realm, () => {
      const state = realm.state;
      const cleaned = unwrap(cleanNarrow(state, user, narrow));
      if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) {
        return Errors.badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
      }
      if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
        return Errors.badRequest('The anchor can only be excluded at an end of the range');
      }
      const list = fetchMessageList(
        state,
        user,
        { anchor, includeAnchor, numBefore, numAfter, narrow: cleaned, applyMarkdown, clientGravatar, allowEmptyTopicName, visibleUpTo: realm.durableMessageId },
        (id) => realm.messageBody(id),
      );
      if (list instanceof ZulipError) return list;
      const { messagesJson, ...rest } = list;
      return { messages: new RawJson(messagesJson), ...rest };
    });
  },
});

const PROPAGATE_MODES = new Set(['change_one', 'change_later', 'change_all']);

/**
 * `PATCH /messages/{message_id}` (https://zulip.com/api/update-message, Zulip's typed
 * `update_message_backend`): `content`, `topic` (alias `subject`, stripped), `stream_id` (JSON
 * non-negative integer), `propagate_mode` (`change_one` default | `change_later` | `change_all`),
 * `send_notification_to_old_thread` (JSON bool, default false), `send_notification_to_new_thread`
 * (JSON bool, default true). Success: `{detached_uploads: []}`.
 *
 * Content edits need the current body (raw and HTML) for `orig_content` and the history entry;
 * bodies are outside the realm state, so the endpoint reads it and passes it with the message's
 * content version. If another edit lands in between, the handler answers `STALE_BODY` and the
 * endpoint reads again (at most a few times).
 */
export const updateMessage = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  dialect: 'typed',
  params: {
    stream_id: P.json(Type.Integer({ minimum: 0 })),
    topic: P.string({ aliases: ['subject'] }),
    propagate_mode: P.string({ default: 'change_one' }),
    send_notification_to_old_thread: P.bool({ default: false }),
    send_notification_to_new_thread: P.bool({ default: true }),
    content: P.string(),
  },
  handler: async ({ realm, user, params, path }) => {
    if (!PROPAGATE_MODES.has(params.propagate_mode)) return Errors.badRequest('Invalid propagate_mode');
    const command: EditMessage = {
      type: 'edit_message',
      actorId: user.id,
      messageId: path.message_id,
      propagateMode: params.propagate_mode as EditMessage['propagateMode'],
      sendNotificationToOldThread: params.send_notification_to_old_thread,
      sendNotificationToNewThread: params.send_notification_to_new_thread,
      ...(params.content !== undefined && { content: params.content }),
      ...(params.topic !== undefined && { topic: params.topic.trim() }),
      ...(params.stream_id !== undefined && { streamId: params.stream_id }),
    };
    if (command.content !== undefined && realm.state.messages.exists(command.messageId)) {
      // Rendered for the message's sender, as the edit's `decide` renders it (render-offload.ts).
      const senderId = realm.state.messages.sender.get(command.messageId);
      const content = command.content.trimEnd() === '' ? '(deleted)' : command.content;
      const prerendered = await prerenderRawContent(realm, senderId, content, Date.now() / 1000);
      if (prerendered !== undefined) command.prerendered = prerendered;
    }
    for (let attempt = 0; ; attempt++) {
      if (command.content !== undefined) {
        const id = command.messageId;
        command.bodyVersion = contentVersion(realm.state, id);
        const body = realm.state.messages.exists(id) ? realm.messageBody(id) : undefined;
        if (isDamagedBody(body)) return Errors.messageDamaged(id);
        if (body !== undefined) command.body = body;
      }
      const result = await realm.execute(command);
      if (result.ok) return { ...result.value };
      if (result.error.message !== STALE_BODY || attempt >= 4) return result.error;
    }
  },
});

/**
 * `DELETE /messages/{message_id}` (https://zulip.com/api/delete-message; Zulip's typed
 * `delete_message_backend`, no parameters besides the path id). The rules, error strings and
 * events are in `realm/handlers/message-delete.ts`. Success: the empty success body.
 */
export const deleteMessage = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  dialect: 'typed',
  params: {},
  handler: ({ realm, user, path }) =>
    runCommand(realm, { type: 'delete_message', actorId: user.id, messageId: path.message_id }),
});

/**
 * `GET /messages/{message_id}/history` (https://zulip.com/api/get-message-history, Zulip's
 * `get_message_edit_history`): the message's snapshots oldest first. Realm `allow_edit_history`
 * false → "Message edit history is disabled in this organization" (checked first); inaccessible →
 * "Invalid message(s)". `allow_empty_topic_name` (JSON bool, default false) controls whether the
 * empty topic is shown as the realm's display name.
 */
export const getMessageHistory = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  dialect: 'typed',
  params: { allow_empty_topic_name: P.bool({ default: false }) },
  handler: ({ realm, user, params, path }) =>
    durableRead(realm, () => {
      const state = realm.state;
      if (!state.settings.allowEditHistory) return Errors.badRequest('Message edit history is disabled in this organization');
      const id = path.message_id;
      const body = readableBody(realm, user, id);
      if (body instanceof ZulipError) return body;
      return { message_history: historySnapshots(state, id, body, params.allow_empty_topic_name, highlightHtmlDifferences) };
    }),
});

/**
 * `GET /messages/matches_narrow` (OpenAPI `check-messages-match-narrow`; Zulip's
 * `messages_in_narrow_backend` at feature level 417): which of `msg_ids` match `narrow`.
 *
 * Parameters (typed dialect): `msg_ids` (JSON list of integers, required), `narrow` (JSON list
 * of narrow terms, required; parsed as `GET /messages` parses it, `narrow-parse.ts`). As Zulip,
 * the first `topic` term equal to the empty-topic display name means the empty topic; there is
 * no `with` handling (an unknown operator here).
 *
 * Only messages the viewer received count (Zulip's `need_user_message=True`): a UserMessage row,
 * in a channel that is public to them or that they are subscribed to, or a direct message — the
 * `GET /messages` row rule, without history mode. Unknown, deleted and inaccessible ids are left
 * out silently, as are ids that do not match and messages not yet durable.
 *
 * Response: `{messages: {"<id>": {match_content, match_subject}}}`: for a `search` narrow, the
 * rendered content and the HTML-escaped topic with the query words in
 * `<span class="highlight">…</span>` (as `GET /messages`); otherwise the rendered content and
 * the HTML-escaped topic unchanged. Narrow errors are those of `GET /messages` (BAD_NARROW).
 */
export const checkMessagesMatchNarrow = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {
    msg_ids: P.json(Type.Array(Type.Integer())),
    narrow: P.string(),
  },
  handler: ({ realm, user, params }) => {
    if (params.msg_ids === undefined) return Errors.missingArgument('msg_ids');
    if (params.narrow === undefined) return Errors.missingArgument('narrow');
    const parsed = parseNarrow(params.narrow);
    if (parsed instanceof ZulipError) return parsed;
    const msgIds = params.msg_ids as number[];
    return durableRead(realm, () => matchesNarrow(realm, user, parsed ?? [], msgIds));
  },
});

/** `checkMessagesMatchNarrow`'s answer, computed on the realm's current state. */
/**
 * The stored body (Markdown and HTML) of message `id` for `user`, or the error a reader gets: `Invalid message(s)` for a
 * message that is unknown, not durable yet (RealmHandle.durableMessageId) or not accessible
 * (`accessMessage`), `MESSAGE_DAMAGED` when its stored body fails its checksum.
 */
function readableBody(realm: RealmHandle, user: User, id: number): MessageBody | ZulipError {
  if (id > realm.durableMessageId) return Errors.invalidMessage();
  const access = accessMessage(realm.state, user, id);
  if (!access.ok) return access.error;
  const body = realm.messageBody(id);
  if (body === undefined) return Errors.invalidMessage();
  if (isDamagedBody(body)) return Errors.messageDamaged(id);
  return body;
}

function matchesNarrow(realm: RealmHandle, user: User, parsed: readonly NarrowTerm[], msgIds: readonly number[]) {
  const state = realm.state;
  const terms = parsed.map((t) => ({ ...t }));
  const topicTerm = terms.find((t) => t.operator === 'topic');
  if (topicTerm !== undefined && topicTerm.operand === state.settings.emptyTopicDisplayName) topicTerm.operand = '';

  const compiled = compileNarrow(state, user, messageLookupIndex(state), terms);
  if (compiled instanceof ZulipError) return compiled;
  const readBody = (id: number) => realm.messageBody(id);
  const selection = new Selection(state, user, compiled, false, readBody, realm.durableMessageId);
  const search = compiled.search;
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  const ids = [...new Set(msgIds)].sort((a, b) => a - b);
  for (const id of ids) {
    if (!selection.accepts(id)) continue;
    const body = readBody(id);
    if (body === undefined) continue;
    const topic = state.topics.value(state.messages.topic.get(id));
    messages[String(id)] =
      search === null
        ? { match_content: body.rendered, match_subject: escapeTopicHtml(topic) }
        : { match_content: highlightHtml(body.rendered, search), match_subject: highlightTopic(topic, search) };
  }
  return { messages };
}
