/**
 * The compose box: "Channel" + "Topic" or direct-message recipients ("To", emails), "Message",
 * "Send". Enter sends, Shift+Enter is a newline (Zulip's default `enter_sends`); "Preview"
 * renders through `/messages/render`; typing notices while typing; a failed send keeps the text
 * (the draft) and says why; files dropped or pasted into the message are uploaded and linked.
 * State is module-level signals so keyboard shortcuts can open it.
 */
import { signal } from '@preact/signals';
import { uploadFile } from '../api.js';
import { noteTyping, renderPreview, sendMessage, stopTyping, type ComposeTarget } from '../actions.js';
import { subscriptions } from '../state.js';

export const composeKind = signal<'stream' | 'dm'>('stream');
export const composeChannel = signal('');
export const composeTopic = signal('');
/** DM recipients: emails, comma-separated. */
export const composeTo = signal('');
export const composeText = signal('');
const preview = signal<string | null>(null);
const composeError = signal('');
const sending = signal(false);

/** Drafts survive a reload: the unsent text of a failed send is kept in localStorage. */
const DRAFT_KEY = 'parley.compose-draft';

/** Opens the compose box for a target and focuses the first empty field (keyboard c, x, r). */
export function openCompose(target: Partial<{ kind: 'stream' | 'dm'; channel: string; topic: string; to: string }>): void {
  if (target.kind !== undefined) composeKind.value = target.kind;
  if (target.channel !== undefined) composeChannel.value = target.channel;
  if (target.topic !== undefined) composeTopic.value = target.topic;
  if (target.to !== undefined) composeTo.value = target.to;
  preview.value = null;
  queueMicrotask(() => {
    const order = composeKind.value === 'stream' ? ['compose-channel', 'compose-topic', 'compose-message'] : ['compose-to', 'compose-message'];
    const empty = order.find((id) => (document.getElementById(id) as HTMLInputElement | null)?.value === '');
    document.getElementById(empty ?? 'compose-message')?.focus();
  });
}

function target(): ComposeTarget {
  return composeKind.value === 'stream'
    ? { kind: 'stream', channel: composeChannel.value.trim(), topic: composeTopic.value.trim() }
    : {
        kind: 'dm',
        emails: composeTo.value
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean),
      };
}

async function send(): Promise<void> {
  const content = composeText.value;
  if (content.trim() === '' || sending.value) return;
  const to = target();
  if (to.kind === 'stream' && to.channel === '') {
    composeError.value = 'Please specify a channel.';
    return;
  }
  if (to.kind === 'dm' && to.emails.length === 0) {
    composeError.value = 'Please specify at least one valid recipient.';
    return;
  }
  sending.value = true;
  composeError.value = '';
  composeText.value = '';
  preview.value = null;
  stopTyping();
  try {
    await sendMessage(to, content);
    localStorage.removeItem(DRAFT_KEY);
  } catch (error) {
    // Keep the draft: back in the box (unless the user typed something new) and in storage.
    if (composeText.value === '') composeText.value = content;
    localStorage.setItem(DRAFT_KEY, content);
    composeError.value = `Message not sent: ${(error as Error).message}`;
  } finally {
    sending.value = false;
  }
}

/**
 * Uploads dropped or pasted files one by one and inserts a Markdown link for each where the
 * cursor was (Zulip's `[name](/user_uploads/...)`), with a placeholder while it uploads.
 */
async function attachFiles(files: readonly File[], box: HTMLTextAreaElement): Promise<void> {
  for (const file of files) {
    const placeholder = `[Uploading ${file.name}…]()`;
    const at = box.selectionStart ?? composeText.value.length;
    composeText.value = composeText.value.slice(0, at) + placeholder + composeText.value.slice(at);
    try {
      const { url, filename } = await uploadFile(file);
      composeText.value = composeText.value.replace(placeholder, `[${filename.replace(/[[\]]/g, '')}](${url})`);
    } catch (error) {
      composeText.value = composeText.value.replace(placeholder, '');
      composeError.value = `${file.name}: ${(error as Error).message}`;
    }
  }
}

/** Restores a draft kept by a failed send (called once at start). */
export function restoreDraft(): void {
  const draft = localStorage.getItem(DRAFT_KEY);
  if (draft !== null && composeText.value === '') composeText.value = draft;
}

export function Compose() {
  const kind = composeKind.value;
  return (
    <form
      class="compose"
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div class="compose-recipient">
        <div class="compose-kind" role="group" aria-label="Message type">
          <button type="button" aria-pressed={kind === 'stream'} onClick={() => (composeKind.value = 'stream')}>
            Channel message
          </button>
          <button type="button" aria-pressed={kind === 'dm'} onClick={() => (composeKind.value = 'dm')}>
            Direct message
          </button>
        </div>
        {kind === 'stream' ? (
          <>
            <input
              id="compose-channel"
              aria-label="Channel"
              placeholder="Channel"
              list="compose-channels"
              value={composeChannel.value}
              onInput={(e) => (composeChannel.value = e.currentTarget.value)}
            />
            <datalist id="compose-channels">
              {subscriptions.value.map((s) => (
                <option key={s.stream_id} value={s.name} />
              ))}
            </datalist>
            <span aria-hidden="true">›</span>
            <input id="compose-topic" aria-label="Topic" placeholder="Topic" value={composeTopic.value} onInput={(e) => (composeTopic.value = e.currentTarget.value)} />
          </>
        ) : (
          <input
            id="compose-to"
            aria-label="To"
            placeholder="Recipients' emails, comma-separated"
            value={composeTo.value}
            onInput={(e) => (composeTo.value = e.currentTarget.value)}
          />
        )}
      </div>
      {preview.value !== null ? (
        // Server-rendered, server-sanitized HTML from /messages/render.
        <div class="compose-preview rendered_markdown" aria-label="Preview" dangerouslySetInnerHTML={{ __html: preview.value }} />
      ) : (
        <textarea
          id="compose-message"
          aria-label="Message"
          placeholder="Message"
          rows={3}
          value={composeText.value}
          onInput={(e) => {
            composeText.value = e.currentTarget.value;
            noteTyping(target());
          }}
          onDragOver={(e) => e.preventDefault()}
          onDrop={(e) => {
            const files = [...(e.dataTransfer?.files ?? [])];
            if (files.length === 0) return;
            e.preventDefault();
            void attachFiles(files, e.currentTarget);
          }}
          onPaste={(e) => {
            const files = [...(e.clipboardData?.files ?? [])];
            if (files.length === 0) return;
            e.preventDefault();
            void attachFiles(files, e.currentTarget);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            } else if (e.key === 'Escape') {
              e.currentTarget.blur();
            }
          }}
        />
      )}
      <div class="compose-buttons">
        <button type="submit" disabled={sending.value}>
          Send
        </button>
        <button
          type="button"
          onClick={() => {
            if (preview.value !== null) preview.value = null;
            else
              renderPreview(composeText.value).then(
                (html) => (preview.value = html),
                (e: Error) => (composeError.value = e.message),
              );
          }}
        >
          {preview.value === null ? 'Preview' : 'Write'}
        </button>
        {composeError.value && (
          <span class="error" role="alert">
            {composeError.value}
          </span>
        )}
      </div>
    </form>
  );
}
