/**
 * What the user does, as API calls: send (with local echo), mark read, edit, delete, react,
 * typing notices, personal settings, presence, log out. The server's events then update the
 * state; the optimistic parts (local echo, read marks) are reconciled by id.
 */
import { api, ApiError, csrfToken } from './api.js';
import { mergeIntoFeed, removeMessages } from './feed.js';
import { me, noteTopic, notice, streamByName, unread, userByEmail } from './state.js';
import type { Message } from './types.js';

/** The queue id of the event stream (for `queue_id` + `local_id` local echo). */
let queueId = '';
export function setQueueId(id: string): void {
  queueId = id;
}

/** A compose target: a channel topic, or direct-message recipients (emails). */
export type ComposeTarget = { kind: 'stream'; channel: string; topic: string } | { kind: 'dm'; emails: string[] };

let nextLocalId = 1;

/**
 * Sends a message (https://zulip.com/api/send-message) with `queue_id`/`local_id`: a local echo
 * (its text shown as text, never as HTML) appears at once and is replaced by the server's copy
 * when its `message` event arrives (matched by `local_message_id`). On failure the echo is
 * removed and the error thrown, so the compose box keeps the draft.
 */
export async function sendMessage(target: ComposeTarget, content: string): Promise<number> {
  const localId = `${nextLocalId++}.0`;
  const echo: Message = {
    id: -Number.parseFloat(localId),
    type: target.kind === 'stream' ? 'stream' : 'private',
    sender_id: me.value.userId,
    sender_full_name: me.value.fullName,
    sender_email: me.value.email,
    timestamp: Math.floor(Date.now() / 1000),
    content: '',
    local_text: content,
    local_id: localId,
    subject: target.kind === 'stream' ? target.topic : '',
    display_recipient:
      target.kind === 'stream'
        ? target.channel
        : target.emails.map((email) => ({ id: userByEmail(email)?.user_id ?? 0, email, full_name: userByEmail(email)?.full_name ?? email })),
    reactions: [],
    flags: ['read'],
  };
  if (target.kind === 'stream') {
    const stream = streamByName(target.channel);
    if (stream !== undefined) echo.stream_id = stream.stream_id;
  }
  mergeIntoFeed([echo]);
  try {
    const params =
      target.kind === 'stream'
        ? { type: 'stream', to: target.channel, topic: target.topic }
        : { type: 'direct', to: target.emails };
    const answer = await api<{ id: number }>('POST', 'messages', { ...params, content, queue_id: queueId || undefined, local_id: localId });
    return answer.id;
  } catch (error) {
    removeMessages([echo.id]);
    throw error;
  }
}

/** Read marks not yet sent (batched: one request per 300 ms). */
const pendingRead = new Set<number>();
let readTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * Marks messages read (https://zulip.com/api/update-message-flags, `op=add flag=read`) as they
 * are seen: the unread counts drop at once, the server's `update_message_flags` event confirms.
 */
export function markRead(ids: readonly number[]): void {
  const fresh = ids.filter((id) => id > 0 && unread.value.has(id) && !pendingRead.has(id));
  if (fresh.length === 0) return;
  for (const id of fresh) pendingRead.add(id);
  const next = new Map(unread.value);
  for (const id of fresh) next.delete(id);
  unread.value = next;
  readTimer ??= setTimeout(() => {
    readTimer = null;
    const batch = [...pendingRead];
    pendingRead.clear();
    api('POST', 'messages/flags', { messages: batch, op: 'add', flag: 'read' }).catch((e: Error) => {
      notice.value = `Could not mark messages as read: ${e.message}`;
    });
  }, 300);
}

/** Stars or unstars a message. */
export async function setStarred(id: number, on: boolean): Promise<void> {
  await api('POST', 'messages/flags', { messages: [id], op: on ? 'add' : 'remove', flag: 'starred' });
}

/** The Markdown source of a message (https://zulip.com/api/get-message, `apply_markdown=false`). */
export async function rawContent(id: number): Promise<string> {
  const answer = await api<{ message: { content: string }; raw_content?: string }>('GET', `messages/${id}`, { apply_markdown: false });
  return answer.raw_content ?? answer.message.content;
}

/** Edits a message's content (https://zulip.com/api/update-message). */
export async function editMessage(id: number, content: string): Promise<void> {
  await api('PATCH', `messages/${id}`, { content });
}

/** Deletes a message (https://zulip.com/api/delete-message). */
export async function deleteMessage(id: number): Promise<void> {
  await api('DELETE', `messages/${id}`);
}

/** Adds or removes my reaction (https://zulip.com/api/add-reaction, remove-reaction). */
export async function toggleReaction(message: Message, emojiName: string): Promise<void> {
  const mine = message.reactions.some((r) => r.user_id === me.value.userId && r.emoji_name === emojiName);
  await api(mine ? 'DELETE' : 'POST', `messages/${message.id}/reactions`, { emoji_name: emojiName });
}

/** Renders Markdown for the preview (https://zulip.com/api/render-message): sanitized HTML. */
export async function renderPreview(content: string): Promise<string> {
  const answer = await api<{ rendered: string }>('POST', 'messages/render', { content });
  return answer.rendered;
}

/** Typing notices (https://zulip.com/api/set-typing-status): `start` at most every 10 s, `stop` after 5 s idle. */
const TYPING_RENEW_MS = 10000;
const TYPING_IDLE_MS = 5000;
let typingSentAt = 0;
let typingTarget = '';
let typingStopTimer: ReturnType<typeof setTimeout> | null = null;

function typingParams(target: ComposeTarget): Record<string, string | number | number[]> | null {
  if (target.kind === 'stream') {
    const stream = streamByName(target.channel);
    return stream === undefined || target.topic === '' ? null : { type: 'stream', stream_id: stream.stream_id, topic: target.topic };
  }
  const ids = target.emails.map((e) => userByEmail(e)?.user_id).filter((id): id is number => id !== undefined);
  return ids.length === 0 ? null : { type: 'direct', to: ids };
}

/** Called on every keystroke in the message box. */
export function noteTyping(target: ComposeTarget): void {
  const params = typingParams(target);
  if (params === null) return;
  const key = JSON.stringify(params);
  const now = Date.now();
  if (key !== typingTarget || now - typingSentAt > TYPING_RENEW_MS) {
    if (typingTarget !== '' && key !== typingTarget) stopTyping();
    typingTarget = key;
    typingSentAt = now;
    api('POST', 'typing', { ...params, op: 'start' }).catch(() => undefined);
  }
  if (typingStopTimer !== null) clearTimeout(typingStopTimer);
  typingStopTimer = setTimeout(stopTyping, TYPING_IDLE_MS);
}

/** Sends `stop` for the current typing notice, if any (after sending, or when idle). */
export function stopTyping(): void {
  if (typingStopTimer !== null) clearTimeout(typingStopTimer);
  typingStopTimer = null;
  if (typingTarget === '') return;
  const params = JSON.parse(typingTarget) as Record<string, string | number | number[]>;
  typingTarget = '';
  typingSentAt = 0;
  api('POST', 'typing', { ...params, op: 'stop' }).catch(() => undefined);
}

/** Changes personal settings (https://zulip.com/api/update-settings). */
export async function updateSettings(params: Record<string, string | number>): Promise<void> {
  await api('PATCH', 'settings', params);
}

/** Tells the server I am here (https://zulip.com/api/update-presence), every 60 s while the page is open. */
export function reportPresence(): void {
  const status = document.visibilityState === 'visible' ? 'active' : 'idle';
  api('POST', 'users/me/presence', { status, new_user_input: status === 'active', slim_presence: true }).catch(() => undefined);
}

/** Logs out (`POST /accounts/logout/`, as Zulip's web app) and goes to the login page. */
export async function logOut(): Promise<void> {
  try {
    await fetch('/accounts/logout/', { method: 'POST', credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken() } });
  } finally {
    location.assign('/login/');
  }
}

/** Puts an action's failure in the notice bar. */
export function report(error: unknown): void {
  notice.value = error instanceof ApiError || error instanceof Error ? error.message : String(error);
}

/** Loads a channel's topics for the sidebar (https://zulip.com/api/get-stream-topics). */
export async function loadTopics(streamId: number): Promise<void> {
  const answer = await api<{ topics: Array<{ name: string; max_id: number }> }>('GET', `users/me/${streamId}/topics`);
  for (const topic of answer.topics) noteTopic(streamId, topic.name, topic.max_id);
}
