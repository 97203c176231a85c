/**
 * Web sessions are durable and revocable across restarts, against the real server process
 * (`dist/cli.js`): a login answered with a cookie survives `kill -9` (the session record is
 * durable before the 302), and a logout or password change stays in force after a restart.
 */
import t from 'tap';
import { DEFAULT_DEMO_PASSWORD, makeTempDir, startServer } from '../support/server-process.js';
import { Browser } from '../support/browser-session.js';

/** The same browser (its cookies) pointed at a restarted server's new port. */
function moved(b: Browser, url: string): Browser {
  const next = new Browser(url);
  for (const [k, v] of b.cookies) next.cookies.set(k, v);
  return next;
}

t.test('sessions survive kill -9; logout and password change survive a restart', async (t) => {
  const dataDir = makeTempDir(t);
  const first = await startServer({ t, dataDir, demoPassword: DEFAULT_DEMO_PASSWORD });
  const hamlet = new Browser(first.url);
  t.equal((await hamlet.logIn('hamlet@zulip.com', DEFAULT_DEMO_PASSWORD)).status, 302);
  const leaving = new Browser(first.url);
  t.equal((await leaving.logIn('othello@zulip.com', DEFAULT_DEMO_PASSWORD)).status, 302);
  const changing = new Browser(first.url);
  t.equal((await changing.logIn('iago@zulip.com', DEFAULT_DEMO_PASSWORD)).status, 302);
  const bystander = new Browser(first.url);
  t.equal((await bystander.logIn('iago@zulip.com', DEFAULT_DEMO_PASSWORD)).status, 302);
  t.equal((await leaving.fetch('POST', '/accounts/logout/', { headers: { 'X-CSRFToken': leaving.csrf() } })).status, 302);
  const changed = await changing.json('PATCH', 'settings', { old_password: DEFAULT_DEMO_PASSWORD, new_password: 'a-much-better-secret-41' });
  t.equal(changed.status, 200, JSON.stringify(changed.json));
  await first.stop('SIGKILL');

  const second = await startServer({ t, dataDir, demoPassword: DEFAULT_DEMO_PASSWORD });
  const me = await moved(hamlet, second.url).json('GET', 'users/me');
  t.equal(me.status, 200, 'the session survived kill -9');
  t.equal(me.json?.email, 'hamlet@zulip.com');
  const sent = await moved(hamlet, second.url).json('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'restart', content: 'still here' });
  t.equal(sent.status, 200, 'and its CSRF token still works');
  t.equal((await moved(leaving, second.url).json('GET', 'users/me')).status, 401, 'a logged-out session stays ended');
  t.equal((await moved(changing, second.url).json('GET', 'users/me')).status, 200, 'the session that changed the password stays');
  t.equal((await moved(bystander, second.url).json('GET', 'users/me')).status, 401, 'the other session of that user stays ended');
  await second.stop('SIGTERM');
});
