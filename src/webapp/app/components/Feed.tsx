/**
 * The message feed (`role="log"` named "Messages"): a virtualized list that renders only the
 * messages in and near the viewport, so a narrow of 10,000 messages scrolls as smoothly as one of
 * ten. Row heights are measured after render and estimated before; two spacers stand in for
 * the rows not rendered. It sticks to the bottom while the reader is there, loads older pages
 * near the top, and marks messages read once they have been on screen.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { markRead } from '../actions.js';
import { loadOlder } from '../feed.js';
import { feed, feedState, selectedId } from '../state.js';
import { MessageRow } from './MessageRow.js';

/** Height (px) assumed for a row not yet measured. */
const ESTIMATED_ROW_PX = 64;
/** Pixels rendered beyond the viewport on each side. */
const OVERSCAN_PX = 800;
/** Distance from the top (px) at which older messages are fetched. */
const LOAD_OLDER_PX = 400;

/** Index of the first row whose bottom is below `y` (binary search over row offsets). */
function rowAt(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1]! <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function Feed() {
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<number, number>());
  const atBottom = useRef(true);
  const [view, setView] = useState({ top: 0, height: 800 });
  const [, setMeasured] = useState(0);
  const messages = feed.value;
  const state = feedState.value;

  // offsets[i] = top of row i; offsets[n] = total height.
  const offsets = new Float64Array(messages.length + 1);
  for (let i = 0; i < messages.length; i++) offsets[i + 1] = offsets[i]! + (heights.current.get(messages[i]!.id) ?? ESTIMATED_ROW_PX);
  const total = offsets[messages.length]!;
  const start = messages.length === 0 ? 0 : rowAt(offsets, Math.max(0, view.top - OVERSCAN_PX));
  const end = messages.length === 0 ? 0 : Math.min(messages.length, rowAt(offsets, view.top + view.height + OVERSCAN_PX) + 1);

  const onScroll = () => {
    const el = scroller.current;
    if (el === null) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    setView({ top: el.scrollTop, height: el.clientHeight });
    if (el.scrollTop < LOAD_OLDER_PX) void loadOlder();
  };

  // Measure the rendered rows; re-render when an estimate was wrong. Keep the bottom in view.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>('[data-message-id]')) {
      const id = Number(row.dataset['messageId']);
      const h = row.offsetHeight;
      if (heights.current.get(id) !== h) {
        heights.current.set(id, h);
        changed = true;
      }
    }
    if (atBottom.current) el.scrollTop = el.scrollHeight;
    if (changed) setMeasured((n) => n + 1);
    if (view.height !== el.clientHeight) setView({ top: el.scrollTop, height: el.clientHeight });
    // Seen = on screen while the page is visible.
    if (document.visibilityState === 'visible') {
      const box = el.getBoundingClientRect();
      const seen: number[] = [];
      for (const row of el.querySelectorAll<HTMLElement>('.message-group')) {
        const r = row.getBoundingClientRect();
        if (r.bottom > box.top && r.top < box.bottom) seen.push(Number(row.dataset['messageId']));
      }
      markRead(seen);
    }
  });

  // The keyboard cursor (j/k) scrolls its message into view.
  const selected = selectedId.value;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null || selected === null) return;
    const index = messages.findIndex((m) => m.id === selected);
    if (index < 0) return;
    const top = offsets[index]!;
    const bottom = offsets[index + 1]!;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (bottom > el.scrollTop + el.clientHeight) el.scrollTop = bottom - el.clientHeight;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  }, [selected]);

  return (
    <div class="feed" role="log" aria-label="Messages" aria-busy={state.loading} ref={scroller} onScroll={onScroll} tabIndex={-1}>
      {state.foundOldest && messages.length > 0 && <div class="feed-start">Beginning of this view</div>}
      {state.loading && messages.length === 0 && <div class="feed-status">Loading…</div>}
      {state.error && <div class="feed-status error">{state.error}</div>}
      {!state.loading && !state.error && messages.length === 0 && <div class="feed-status">No messages here yet.</div>}
      <div style={{ height: `${offsets[start]}px` }} aria-hidden="true" />
      {messages.slice(start, end).map((m, i) => (
        <MessageRow key={m.local_id ?? m.id} message={m} previous={messages[start + i - 1]} />
      ))}
      <div style={{ height: `${total - offsets[end]!}px` }} aria-hidden="true" />
    </div>
  );
}
