/**
 * Zulip's main keyboard shortcuts (https://zulip.com/help/keyboard-shortcuts): `c` new channel
 * message, `x` new direct message, `r` reply to the selected message, `j`/`k` next/previous
 * message, `/` search, `Esc` leave the field / close the panel. Ignored while typing in a field.
 */
import { openCompose } from './components/Compose.js';
import { dmOperand } from './components/Sidebar.js';
import { dmPeers, narrowPlace } from './narrow.js';
import { drawer, feed, me, narrow, panel, selectedId, streamById } from './state.js';

function moveSelection(step: number): void {
  const list = feed.value;
  if (list.length === 0) return;
  const index = list.findIndex((m) => m.id === selectedId.value);
  const next = index < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, index + step));
  selectedId.value = list[next]!.id;
}

function reply(): void {
  const message = feed.value.find((m) => m.id === selectedId.value) ?? feed.value[feed.value.length - 1];
  if (message === undefined) return;
  if (message.type === 'stream') {
    openCompose({ kind: 'stream', channel: streamById(message.stream_id ?? -1)?.name ?? String(message.display_recipient), topic: message.subject });
  } else {
    openCompose({ kind: 'dm', to: dmOperand(dmPeers(message, me.value.userId)) });
  }
}

/** Handles one keydown on the document; returns true when it was a shortcut. */
export function handleShortcut(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  const inField = target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);
  if (e.key === 'Escape') {
    if (inField) target.blur();
    panel.value = 'none';
    drawer.value = 'none';
    return true;
  }
  if (inField || e.ctrlKey || e.metaKey || e.altKey) return false;
  const place = narrowPlace(narrow.value);
  switch (e.key) {
    case 'c':
      openCompose({ kind: 'stream', channel: place.channel ?? '', topic: place.topic ?? '' });
      return true;
    case 'x':
      openCompose({ kind: 'dm', to: place.dm ?? '' });
      return true;
    case 'r':
      reply();
      return true;
    case 'j':
      moveSelection(1);
      return true;
    case 'k':
      moveSelection(-1);
      return true;
    case '/':
      document.getElementById('search-input')?.focus();
      return true;
    default:
      return false;
  }
}

export function installShortcuts(): void {
  document.addEventListener('keydown', (e) => {
    if (handleShortcut(e)) e.preventDefault();
  });
}
