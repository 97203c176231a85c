/**
 * One message of the feed: the recipient header (channel › topic, or the DM peers) when the
 * conversation changes, the sender and time when the sender changes, the server-rendered HTML,
 * reactions, and the actions on it (react, star, edit and delete own messages).
 *
 * Security: `content` is the server's `rendered_content`, sanitized by the server's Markdown
 * processor; it is the only HTML set with `dangerouslySetInnerHTML`. A local echo's text is
 * rendered as text.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { deleteMessage, editMessage, rawContent, report, setStarred, toggleReaction } from '../actions.js';
import { dmPeers } from '../narrow.js';
import { me, selectedId, streamById, userName } from '../state.js';
import type { Message, Reaction } from '../types.js';
import { codeToChar, EmojiPicker, emojiChar } from './EmojiPicker.js';
import { dmOperand, go } from './Sidebar.js';

/** Whether two messages are in the same conversation (one recipient header covers both). */
export function sameConversation(a: Message | undefined, b: Message): boolean {
  if (a === undefined || a.type !== b.type) return false;
  if (b.type === 'stream') return a.stream_id === b.stream_id && a.subject.toLowerCase() === b.subject.toLowerCase();
  return dmPeers(a, me.value.userId).join(',') === dmPeers(b, me.value.userId).join(',');
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function RecipientHeader({ message }: { message: Message }) {
  if (message.type === 'stream') {
    const stream = message.stream_id === undefined ? undefined : streamById(message.stream_id);
    const name = stream?.name ?? (typeof message.display_recipient === 'string' ? message.display_recipient : 'unknown channel');
    return (
      <div class="recipient-header" style={{ borderColor: stream?.color ?? '#999' }}>
        <button type="button" class="header-channel" onClick={() => go([{ operator: 'channel', operand: name }])}>
          #{name}
        </button>
        <span aria-hidden="true"> › </span>
        <button type="button" class="header-topic" onClick={() => go([{ operator: 'channel', operand: name }, { operator: 'topic', operand: message.subject }])}>
          {message.subject === '' ? 'general chat' : message.subject}
        </button>
      </div>
    );
  }
  const peers = dmPeers(message, me.value.userId);
  return (
    <div class="recipient-header dm-header">
      <button type="button" class="header-dm" onClick={() => go([{ operator: 'dm', operand: dmOperand(peers) }])}>
        Direct messages with {peers.map(userName).join(', ')}
      </button>
    </div>
  );
}

/** Reactions grouped by emoji: one button per emoji with its count; mine are pressed. */
function Reactions({ message }: { message: Message }) {
  const groups = new Map<string, Reaction[]>();
  for (const r of message.reactions) groups.set(r.emoji_name, [...(groups.get(r.emoji_name) ?? []), r]);
  if (groups.size === 0) return null;
  return (
    <div class="reactions">
      {[...groups.entries()].map(([name, list]) => {
        const mine = list.some((r) => r.user_id === me.value.userId);
        return (
          <button
            type="button"
            key={name}
            class={`reaction${mine ? ' reacted' : ''}`}
            aria-pressed={mine}
            title={`${list.map((r) => userName(r.user_id)).join(', ')} reacted with :${name}:`}
            aria-label={`${name} ${list.length}`}
            onClick={() => toggleReaction(message, name).catch(report)}
          >
            <span class="reaction-emoji">{emojiChar(list[0]!)}</span> <span class="reaction-count">{list.length}</span>
          </button>
        );
      })}
    </div>
  );
}

function Editor({ message, onDone }: { message: Message; onDone: () => void }) {
  const text = useSignal<string | null>(null);
  const error = useSignal('');
  useEffect(() => {
    rawContent(message.id).then(
      (raw) => (text.value = raw),
      (e: Error) => (error.value = e.message),
    );
  }, [message.id]);
  if (text.value === null) {
    return <div class="message-editor">Loading…{error.value}</div>;
  }
  const save = () =>
    editMessage(message.id, text.value ?? '').then(onDone, (e: Error) => {
      error.value = e.message;
    });
  return (
    <div class="message-editor">
      <textarea
        aria-label="Edit message"
        value={text.value}
        onInput={(e) => (text.value = e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            void save();
          } else if (e.key === 'Escape') onDone();
        }}
        ref={(el) => el?.focus()}
      />
      <div class="editor-buttons">
        <button type="button" onClick={() => void save()}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        {error.value && <span class="error">{error.value}</span>}
      </div>
    </div>
  );
}

/**
 * The server's rendered HTML. Zulip draws Unicode emoji (`<span class="emoji emoji-1f604">:smile:</span>`)
 * from sprite sheets parley does not ship; the spans get the emoji character as text instead.
 */
function RenderedContent({ html }: { html: string }) {
  const el = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    for (const span of el.current?.querySelectorAll<HTMLElement>('span.emoji') ?? []) {
      const code = /(?:^|\s)emoji-([0-9a-f-]+)(?:\s|$)/.exec(span.className)?.[1];
      if (code !== undefined) span.textContent = codeToChar(code);
    }
  }, [html]);
  return <div class="message-content rendered_markdown" ref={el} dangerouslySetInnerHTML={{ __html: html }} />;
}

export function MessageRow({ message, previous }: { message: Message; previous: Message | undefined }) {
  const editing = useSignal(false);
  const picking = useSignal(false);
  const newConversation = !sameConversation(previous, message);
  const showSender = newConversation || previous?.sender_id !== message.sender_id;
  const mine = message.sender_id === me.value.userId;
  const isStarred = message.flags.includes('starred');
  const date = new Date(message.timestamp * 1000);
  const selected = selectedId.value === message.id;
  const mentioned = message.flags.includes('mentioned') || message.flags.includes('wildcard_mentioned');
  const classes = ['message-row', message.flags.includes('read') ? '' : 'unread', mentioned ? 'mentioned' : '', selected ? 'selected' : '', message.local_id && message.id < 0 ? 'local-echo' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class="message-group" data-message-id={message.id}>
      {newConversation && <RecipientHeader message={message} />}
      <article class={classes} aria-label={`${message.sender_full_name}, ${dateFormat.format(date)}`} onClick={() => (selectedId.value = message.id)}>
        {showSender && (
          <div class="message-meta">
            <span class="sender-name">{message.sender_full_name}</span>
            <time dateTime={date.toISOString()} title={dateFormat.format(date)}>
              {timeFormat.format(date)}
            </time>
            {message.last_edit_timestamp !== undefined && <span class="edited">(edited)</span>}
          </div>
        )}
        {editing.value ? (
          <Editor message={message} onDone={() => (editing.value = false)} />
        ) : message.local_text !== undefined ? (
          <div class="message-content rendered_markdown">
            <p>{message.local_text}</p>
          </div>
        ) : (
          <RenderedContent html={message.content} />
        )}
        <Reactions message={message} />
        {message.id > 0 && (
          <div class="message-actions">
            <button type="button" aria-label="Add reaction" title="Add reaction" onClick={() => (picking.value = !picking.value)}>
              ☺
            </button>
            <button type="button" aria-label={isStarred ? 'Unstar' : 'Star'} aria-pressed={isStarred} onClick={() => setStarred(message.id, !isStarred).catch(report)}>
              {isStarred ? '★' : '☆'}
            </button>
            {mine && (
              <button type="button" aria-label="Edit" onClick={() => (editing.value = true)}>
                ✎
              </button>
            )}
            {mine && (
              <button
                type="button"
                aria-label="Delete"
                onClick={() => {
                  if (confirm('Delete this message?')) deleteMessage(message.id).catch(report);
                }}
              >
                🗑
              </button>
            )}
          </div>
        )}
        {picking.value && (
          <EmojiPicker
            onPick={(name) => {
              picking.value = false;
              toggleReaction(message, name).catch(report);
            }}
            onClose={() => (picking.value = false)}
          />
        )}
      </article>
    </div>
  );
}
