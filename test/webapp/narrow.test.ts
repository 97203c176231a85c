/**
 * The app's narrow helpers (src/webapp/app/narrow.ts): Zulip's search syntax (as Zulip's web app
 * `web/src/filter.ts` parses it), the URL hash round trip, and the local "does this new message
 * belong in the open narrow" test, including the cases it must leave to the server (null).
 */
import t from 'tap';
import { dmPeers, hashToNarrow, matchesNarrow, narrowPlace, narrowToHash, narrowToText, parseSearch, type NarrowContext } from '../../src/webapp/app/narrow.js';
import type { Message } from '../../src/webapp/app/types.js';

t.test('parseSearch reads operators, quotes, negation, aliases and free text', async (t) => {
  t.same(parseSearch('channel:Verona topic:"hello world" lunch plans'), [
    { operator: 'channel', operand: 'Verona' },
    { operator: 'topic', operand: 'hello world' },
    { operator: 'search', operand: 'lunch plans' },
  ]);
  t.same(parseSearch('stream:Denmark -is:starred from:iago@zulip.com pm-with:a@b.c'), [
    { operator: 'channel', operand: 'Denmark' },
    { operator: 'is', operand: 'starred', negated: true },
    { operator: 'sender', operand: 'iago@zulip.com' },
    { operator: 'dm', operand: 'a@b.c' },
  ]);
  t.same(parseSearch('channel:core+team'), [{ operator: 'channel', operand: 'core team' }], '+ is a space, as in Zulip URLs');
  t.same(parseSearch('   '), [], 'blank = all messages');
  t.same(parseSearch('"exact phrase" x'), [{ operator: 'search', operand: 'exact phrase x' }]);
});

t.test('text and hash round trips', async (t) => {
  const terms = [
    { operator: 'channel', operand: 'core team' },
    { operator: 'topic', operand: 'a/b?c#d' },
    { operator: 'is', operand: 'starred', negated: true },
  ];
  t.same(parseSearch(narrowToText(terms)), terms);
  t.equal(narrowToHash(terms), '#narrow/channel/core%20team/topic/a%2Fb%3Fc%23d/-is/starred');
  t.same(hashToNarrow(narrowToHash(terms)), terms);
  t.same(hashToNarrow(''), []);
  t.equal(narrowToHash([]), '#');
  t.equal(hashToNarrow('#settings'), null, 'not a narrow');
  t.equal(hashToNarrow('#narrow/topic/%E0%A4%A'), null, 'a malformed escape is refused, not thrown');
  t.same(narrowPlace(terms), { channel: 'core team', topic: 'a/b?c#d' });
});

const ctx: NarrowContext = {
  myUserId: 10,
  streamName: (id) => (id === 1 ? 'Verona' : undefined),
  userIdByEmail: (email) => ({ 'hamlet@zulip.com': 10, 'othello@zulip.com': 11, 'iago@zulip.com': 12 })[email],
};
const base = { sender_full_name: 'x', timestamp: 0, content: '', reactions: [], flags: [] as string[] };
const inVerona: Message = { ...base, id: 1, type: 'stream', stream_id: 1, subject: 'Lunch', sender_id: 11, sender_email: 'othello@zulip.com', display_recipient: 'Verona' };
const dm: Message = {
  ...base,
  id: 2,
  type: 'private',
  subject: '',
  sender_id: 11,
  sender_email: 'othello@zulip.com',
  display_recipient: [
    { id: 10, email: 'hamlet@zulip.com', full_name: 'Hamlet' },
    { id: 11, email: 'othello@zulip.com', full_name: 'Othello' },
  ],
};

t.test('matchesNarrow decides what it can and defers the rest', async (t) => {
  t.equal(matchesNarrow(inVerona, [], ctx), true, 'all messages');
  t.equal(matchesNarrow(inVerona, [{ operator: 'channel', operand: 'verona' }, { operator: 'topic', operand: 'LUNCH' }], ctx), true, 'case-insensitive');
  t.equal(matchesNarrow(inVerona, [{ operator: 'topic', operand: 'dinner' }], ctx), false);
  t.equal(matchesNarrow(inVerona, [{ operator: 'channel', operand: 'Verona', negated: true }], ctx), false, 'negated');
  t.equal(matchesNarrow(dm, [{ operator: 'dm', operand: 'othello@zulip.com' }], ctx), true);
  t.equal(matchesNarrow(dm, [{ operator: 'dm', operand: 'othello@zulip.com,iago@zulip.com' }], ctx), false, 'a group DM is another conversation');
  t.equal(matchesNarrow(dm, [{ operator: 'channel', operand: 'Verona' }], ctx), false);
  t.equal(matchesNarrow(dm, [{ operator: 'is', operand: 'dm' }], ctx), true);
  t.equal(matchesNarrow({ ...dm, flags: ['starred'] }, [{ operator: 'is', operand: 'starred' }], ctx), true);
  t.equal(matchesNarrow(dm, [{ operator: 'is', operand: 'starred' }], ctx), false);
  t.equal(matchesNarrow(dm, [{ operator: 'sender', operand: 'me' }], ctx), false);
  t.equal(matchesNarrow(inVerona, [{ operator: 'search', operand: 'lunch' }], ctx), null, 'full-text search is the server’s');
  t.equal(matchesNarrow(inVerona, [{ operator: 'has', operand: 'link' }], ctx), null);
  t.same(dmPeers(dm, 10), [11]);
  t.same(dmPeers({ ...dm, display_recipient: [{ id: 10, email: 'hamlet@zulip.com', full_name: 'Hamlet' }] }, 10), [10], 'a self-DM');
});
