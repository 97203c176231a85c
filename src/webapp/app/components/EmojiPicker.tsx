/**
 * The reaction picker: a search box over Zulip's emoji names (canonical names and aliases,
 * `emoji_names.json` from `zerver/lib/emoji.py`'s data, fetched once as a hashed static asset
 * when the picker first opens) and a grid of matches; picking one reacts by name.
 */
import { signal, useSignal } from '@preact/signals';
import type { Reaction } from '../types.js';

/** `[code, canonical_name, ...aliases]` rows, once loaded. */
const table = signal<ReadonlyArray<readonly string[]> | null>(null);
let loading: Promise<void> | null = null;

function loadTable(): Promise<void> {
  const url = document.querySelector<HTMLMetaElement>('meta[name="parley-emoji"]')?.content ?? '';
  loading ??= fetch(url)
    .then((r) => r.json() as Promise<string[][]>)
    .then((rows) => {
      table.value = rows;
    })
    .catch(() => {
      loading = null;
    });
  return loading;
}

/** The character of a Unicode emoji code (`1f44d`, `0023-20e3`); Zulip's own `zulip` emoji as text. */
export function codeToChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((h) => Number.parseInt(h, 16)));
  } catch {
    return `:${code}:`;
  }
}

export function emojiChar(r: Pick<Reaction, 'emoji_code' | 'reaction_type' | 'emoji_name'>): string {
  return r.reaction_type === 'unicode_emoji' ? codeToChar(r.emoji_code) : `:${r.emoji_name}:`;
}

/** Names matching `query` (prefix of a name or alias first, then substring), at most `limit`. */
export function searchEmoji(rows: ReadonlyArray<readonly string[]>, query: string, limit = 48): Array<{ code: string; name: string }> {
  const q = query.trim().toLowerCase().replace(/\s+/g, '_');
  const prefix: Array<{ code: string; name: string }> = [];
  const inner: Array<{ code: string; name: string }> = [];
  for (const [code, ...names] of rows) {
    const name = names.find((n) => n.startsWith(q));
    if (name !== undefined) prefix.push({ code: code!, name });
    else if (q !== '' && names.some((n) => n.includes(q))) inner.push({ code: code!, name: names.find((n) => n.includes(q))! });
    if (prefix.length >= limit) break;
  }
  return [...prefix, ...inner].slice(0, limit);
}

export function EmojiPicker({ onPick, onClose }: { onPick: (name: string) => void; onClose: () => void }) {
  const query = useSignal('');
  if (table.value === null) void loadTable();
  const matches = table.value === null ? [] : searchEmoji(table.value, query.value);
  return (
    <div class="emoji-picker" role="dialog" aria-label="Emoji picker" onClick={(e) => e.stopPropagation()}>
      <input
        type="text"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query.value}
        ref={(el) => el?.focus()}
        onInput={(e) => (query.value = e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          } else if (e.key === 'Enter' && matches[0] !== undefined) {
            e.preventDefault();
            onPick(matches[0].name);
          }
        }}
      />
      <div class="emoji-grid">
        {table.value === null && <span>Loading…</span>}
        {matches.map((m) => (
          <button type="button" key={m.name} title={`:${m.name}:`} aria-label={m.name} onClick={() => onPick(m.name)}>
            {codeToChar(m.code)}
          </button>
        ))}
      </div>
    </div>
  );
}
