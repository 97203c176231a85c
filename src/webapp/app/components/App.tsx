/**
 * The app's frame: header (search box with Zulip's search syntax, settings, log out, phone
 * drawer toggles), left sidebar, the feed with typing notices and compose box, the user list.
 */
import { useSignal } from '@preact/signals';
import { logOut } from '../actions.js';
import { narrowPlace, narrowToHash, narrowToText, parseSearch } from '../narrow.js';
import { connection, dmKey, drawer, me, narrow, notice, panel, realmName, streamByName, theme, typing, userByEmail, userName } from '../state.js';
import { Compose } from './Compose.js';
import { Feed } from './Feed.js';
import { Inbox } from './Inbox.js';
import { Settings } from './Settings.js';
import { go, Sidebar } from './Sidebar.js';
import { UserList } from './UserList.js';

/** The search box (`role="searchbox"` named "Search"): Enter narrows, Esc clears. */
function SearchBox() {
  const text = useSignal<string | null>(null);
  const shown = text.value ?? narrowToText(narrow.value);
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const terms = parseSearch(shown);
        text.value = null;
        go(terms);
      }}
    >
      <input
        id="search-input"
        type="search"
        role="searchbox"
        aria-label="Search"
        placeholder="Search (channel:Verona topic:lunch sender:me is:starred …)"
        value={shown}
        onInput={(e) => (text.value = e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            text.value = null;
            e.currentTarget.blur();
          }
        }}
      />
    </form>
  );
}

/** "Hamlet is typing…" for the open conversation (a topic or a DM), or anywhere in wider views. */
function TypingNotice() {
  const place = narrowPlace(narrow.value);
  let key: string | null = null;
  if (place.channel !== undefined && place.topic !== undefined) {
    const stream = streamByName(place.channel);
    if (stream !== undefined) key = `stream:${stream.stream_id}:${place.topic.toLowerCase()}`;
  } else if (place.dm !== undefined) {
    const ids = place.dm.split(',').map((email) => userByEmail(email.trim())?.user_id ?? 0).filter((id) => id !== me.value.userId);
    key = `dm:${dmKey(ids.length > 0 ? ids : [me.value.userId])}`;
  }
  const who = key === null ? [...new Set([...typing.value.values()].flatMap((s) => [...s]))] : [...(typing.value.get(key) ?? [])];
  return (
    <div class="typing-notice" aria-live="polite">
      {who.length > 0 && `${who.map(userName).join(', ')} ${who.length === 1 ? 'is' : 'are'} typing…`}
    </div>
  );
}

export function App() {
  return (
    <div class={`app theme-${theme.value} drawer-${drawer.value}`}>
      <header class="top-bar">
        <button type="button" class="drawer-toggle" aria-label="Show channels" onClick={() => (drawer.value = drawer.value === 'left' ? 'none' : 'left')}>
          ☰
        </button>
        <span class="realm-name">{realmName.value || 'parley'}</span>
        <SearchBox />
        <span class={`connection connection-${connection.value}`} title={`Events: ${connection.value}`}>
          {connection.value === 'offline' ? 'Reconnecting…' : ''}
        </span>
        <button type="button" onClick={() => (panel.value = panel.value === 'settings' ? 'none' : 'settings')}>
          Settings
        </button>
        <button type="button" onClick={() => void logOut()}>
          Log out
        </button>
        <button type="button" class="drawer-toggle" aria-label="Show users" onClick={() => (drawer.value = drawer.value === 'right' ? 'none' : 'right')}>
          👥
        </button>
      </header>
      <Sidebar />
      <main class="center">
        {notice.value && (
          <div class="notice" role="alert">
            {notice.value}{' '}
            <button type="button" aria-label="Dismiss" onClick={() => (notice.value = '')}>
              ×
            </button>
          </div>
        )}
        {panel.value === 'settings' && <Settings />}
        {panel.value === 'inbox' && <Inbox />}
        {/* A new narrow starts a new list: at the bottom, no stale measurements. */}
        <Feed key={narrowToHash(narrow.value)} />
        <TypingNotice />
        <Compose />
      </main>
      <UserList />
    </div>
  );
}
