/**
 * Entry point of the browser app: registers the event queue and loads the first narrow in
 * parallel (first messages on screen sooner), renders the app, then keeps state live from the
 * event stream. Without a session the API answers 401 and the app goes to `/login/`.
 */
import { effect } from '@preact/signals';
import { render } from 'preact';
import { reportPresence, setQueueId } from './actions.js';
import { applyEvents, applyRegister } from './apply-event.js';
import { App } from './components/App.js';
import { restoreDraft } from './components/Compose.js';
import { EventStream } from './event-stream.js';
import { openNarrow, refreshNewest } from './feed.js';
import { installShortcuts } from './keyboard.js';
import { hashToNarrow } from './narrow.js';
import { connection, narrow, theme } from './state.js';
import './styles.css';

/** Presence is reported every 60 s (Zulip's web app `ACTIVE_PING_INTERVAL_MS`). */
const PRESENCE_INTERVAL_MS = 60000;

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  const initial = hashToNarrow(location.hash) ?? [];
  const stream = new EventStream({
    onReset: (state) => {
      applyRegister(state);
      setQueueId(state.queue_id);
      void refreshNewest();
    },
    onEvents: applyEvents,
    onStatus: (status) => (connection.value = status),
  });
  const firstPage = openNarrow(initial);
  let state;
  try {
    state = await stream.start();
  } catch (error) {
    root.textContent = `Could not load parley: ${(error as Error).message}`;
    return;
  }
  applyRegister(state);
  setQueueId(state.queue_id);
  root.className = '';
  root.textContent = '';
  render(<App />, root);
  await firstPage;
  // A page re-rendered after register: the narrow's stream names are now known.
  narrow.value = [...narrow.value];
  effect(() => {
    document.documentElement.dataset['theme'] = theme.value;
  });
  installShortcuts();
  restoreDraft();
  reportPresence();
  setInterval(reportPresence, PRESENCE_INTERVAL_MS);
  addEventListener('popstate', () => {
    const terms = hashToNarrow(location.hash);
    if (terms !== null) void openNarrow(terms);
  });
  addEventListener('online', () => stream.reconnect());
  (window as unknown as { parley: unknown }).parley = { stream };
}

void start();
