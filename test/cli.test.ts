/**
 * The `parley` command line (README "Configuration", "A store without the demo"), run as real
 * child processes of the built `dist/cli.js`: exit codes (0 ok, 1 runtime failure, 2 usage),
 * offline `create-realm`/`create-user`, the data-directory lock, the listening line, and demo
 * creation only on an empty store.
 */
import t from 'tap';
import { api, fetchApiKey, makeTempDir, runCli, startServer } from './support/server-process.js';

t.test('--help prints usage and exits 0', async (t) => {
  const variants = [['--help'], ['help'], []];
  const results = await Promise.all(variants.map((args) => runCli(args)));
  for (const [i, args] of variants.entries()) {
    const r = results[i]!;
    t.equal(r.code, 0, `parley ${args.join(' ')} exits 0`);
    t.match(r.stdout, /^usage:/);
    t.match(r.stdout, /parley serve/);
    t.match(r.stdout, /parley create-realm/);
    t.match(r.stdout, /parley create-user/);
    t.equal(r.stderr, '');
  }
});

t.test('usage errors exit 2 with a message', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--bogus'], /unknown option --bogus/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['serve', '--port', 'abc'], /--port must be a TCP port number from 0 to 65535, got 'abc'/],
    [['serve', '--port'], /--port needs a value/],
    [['serve', 'extra'], /unexpected argument 'extra'/],
    [['create-realm', '--data-dir', '/nonexistent-parley-dir'], /--name is required/],
    [['create-user', '--email', 'a@b.c', '--full-name', 'A', '--role', 'king'], /--role must be one of/],
  ];
  // Each CLI start loads the whole server (~0.6 s): run the cases concurrently.
  const results = await Promise.all(cases.map(([args]) => runCli(args)));
  for (const [i, [args, message]] of cases.entries()) {
    const r = results[i]!;
    t.equal(r.code, 2, `parley ${args.join(' ')} exits 2`);
    t.match(r.stderr, message, `message for ${args.join(' ')}`);
    t.match(r.stderr, /usage:/, 'usage follows the message');
    t.equal(r.stdout, '');
  }
  const env = await runCli(['serve'], { PARLEY_PORT: 'x' });
  t.equal(env.code, 2, 'a bad PARLEY_PORT is a usage error too');
  t.match(env.stderr, /--port must be a TCP port number from 0 to 65535, got 'x'/);
});

t.test('create-realm + create-user offline, then serve --no-demo', async (t) => {
  const dataDir = makeTempDir(t);
  const realm = await runCli(['create-realm', '--name', 'Acme', '--data-dir', dataDir]);
  t.equal(realm.code, 0, realm.stderr);
  t.match(realm.stdout, /created organization "Acme"/);
  const ann = await runCli([
    'create-user', '--email', 'ann@acme.com', '--full-name', 'Ann Smith', '--role', 'owner',
    '--password', 'long secret', '--data-dir', dataDir,
  ]);
  t.equal(ann.code, 0, ann.stderr);
  const printedKey = /API key: ([A-Za-z0-9]{32})/.exec(ann.stdout)?.[1];
  t.ok(printedKey, 'create-user prints the API key');
  // Options can come from the environment too.
  const bob = await runCli(['create-user', '--email', 'bob@acme.com', '--full-name', 'Bob'], { PARLEY_DATA_DIR: dataDir });
  t.equal(bob.code, 0, bob.stderr);
  const dup = await runCli(['create-user', '--email', 'ann@acme.com', '--full-name', 'Ann again', '--data-dir', dataDir]);
  t.equal(dup.code, 1, 'a duplicate email is a runtime failure (exit 1)');
  t.match(dup.stderr, /already in use/);
  const noRealm = await runCli(['create-user', '--email', 'x@y.z', '--full-name', 'X', '--subdomain', 'nope', '--data-dir', dataDir]);
  t.equal(noRealm.code, 1);
  t.match(noRealm.stderr, /no organization with subdomain 'nope'/);

  const server = await startServer({ t, dataDir, noDemo: true, demoPassword: null });
  t.notMatch(server.stdout(), /demo/, 'no demo output');
  const login = await fetchApiKey(server.url, 'ann@acme.com', 'long secret');
  t.equal(login.api_key, printedKey, 'fetch_api_key returns the key create-user printed');
  const me = await api(server.url, 'ann@acme.com', login.api_key, 'GET', 'users/me');
  t.match(me.body, { result: 'success', email: 'ann@acme.com', full_name: 'Ann Smith', role: 100, is_owner: true, is_admin: true });
  const settings = await api(server.url, null, null, 'GET', 'server_settings');
  t.equal(settings.body.realm_name, 'Acme');
  const bobLogin = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'bob@acme.com', password: '' });
  t.not(bobLogin.status, 200, 'a user created without a password cannot log in with one');
  const wrong = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'ann@acme.com', password: 'nope' });
  t.match(wrong, { status: 401, body: { result: 'error', code: 'AUTHENTICATION_FAILED' } });
  t.same(await server.stop('SIGTERM'), { code: 0, signal: null });
});

t.test('offline commands refuse a data directory held by a running server', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ t, dataDir });
  const user = await runCli(['create-user', '--email', 'eve@zulip.com', '--full-name', 'Eve', '--data-dir', dataDir]);
  t.equal(user.code, 1, 'create-user exits 1');
  t.match(user.stderr, /data directory .* in use/);
  t.match(user.stderr, new RegExp(`pid ${server.pid}`), 'names the holder');
  const realm = await runCli(['create-realm', '--name', 'Other', '--subdomain', 'other', '--data-dir', dataDir]);
  t.equal(realm.code, 1, 'create-realm exits 1');
  t.match(realm.stderr, /data directory .* in use/);
  const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir], {}, 10_000);
  t.equal(second.code, 1, 'a second server on the same directory exits 1');
  t.match(second.stderr, /data directory .* in use/);
  t.notMatch(second.stdout, /parley listening/);
  // The server is unaffected.
  const login = await fetchApiKey(server.url, 'iago@zulip.com', 'parley-e2e-password');
  t.equal(login.email, 'iago@zulip.com');
  const eve = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'eve@zulip.com', password: 'x' });
  t.equal(eve.status, 401, 'eve was not created');

  // After kill -9 the lock is stale (dead pid) and offline commands take it over.
  server.child.kill('SIGKILL');
  await server.exited();
  const after = await runCli(['create-user', '--email', 'eve@zulip.com', '--full-name', 'Eve', '--password', 'eve password', '--data-dir', dataDir]);
  t.equal(after.code, 0, `create-user after the server died: ${after.stderr}`);
  const again = await startServer({ t, dataDir });
  const eveLogin = await fetchApiKey(again.url, 'eve@zulip.com', 'eve password');
  t.equal(eveLogin.email, 'eve@zulip.com');
});

t.test('serve prints exactly one listening line with the real port', async (t) => {
  const server = await startServer({ t });
  t.ok(server.port > 0 && server.port < 65536, `port ${server.port}`);
  const settings = await api(server.url, null, null, 'GET', 'server_settings');
  t.equal(settings.status, 200, 'the server answers on the printed URL');
  await new Promise((r) => setTimeout(r, 300));
  t.same(await server.stop('SIGTERM'), { code: 0, signal: null });
  const lines = server.stdout().split('\n').filter((l) => l.includes('listening'));
  t.same(lines, [`parley listening on http://127.0.0.1:${server.port}`], 'one exact listening line');
  t.notMatch(server.stdout(), /:0\b/, 'no ":0" port anywhere in the startup output');
});

t.test('PARLEY_* environment variables configure serve; flags win', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({
    t,
    dataDir,
    demoPassword: 'flag-password',
    env: { PARLEY_DEMO_PASSWORD: 'env-password', PARLEY_PORT: '1', PARLEY_HOST: '0.0.0.0' },
  });
  t.match(server.url, /^http:\/\/127\.0\.0\.1:/, '--host beats PARLEY_HOST');
  t.not(server.port, 1, '--port beats PARLEY_PORT');
  await fetchApiKey(server.url, 'hamlet@zulip.com', 'flag-password');
  const envPw = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'hamlet@zulip.com', password: 'env-password' });
  t.equal(envPw.status, 401, 'the flag password won');
  await server.stop('SIGTERM');

  const fresh = await startServer({ t, demoPassword: null, env: { PARLEY_DEMO_PASSWORD: 'env-password' } });
  await fetchApiKey(fresh.url, 'hamlet@zulip.com', 'env-password');
  t.match(fresh.stdout(), /password: env-password/);
});

t.test('a store that already holds a realm does not get the demo (again)', async (t) => {
  await t.test('demo store restarted with another --demo-password', async (t) => {
    const dataDir = makeTempDir(t);
    const first = await startServer({ t, dataDir, demoPassword: 'first-password' });
    t.match(first.stdout(), /created the demo organization "Zulip Dev"/);
    const { api_key: key } = await fetchApiKey(first.url, 'hamlet@zulip.com', 'first-password');
    const sent = await api<{ id: number }>(first.url, 'hamlet@zulip.com', key, 'POST', 'messages', {
      type: 'stream', to: 'Verona', topic: 'restart', content: 'before restart',
    });
    t.equal(sent.status, 200);
    const users1 = await api<{ members: unknown[] }>(first.url, 'hamlet@zulip.com', key, 'GET', 'users');
    t.same(await first.stop('SIGTERM'), { code: 0, signal: null });

    const second = await startServer({ t, dataDir, demoPassword: 'second-password' });
    t.notMatch(second.stdout(), /created the demo organization/, 'no demo creation on restart');
    t.notMatch(second.stdout(), /second-password/);
    const old = await fetchApiKey(second.url, 'hamlet@zulip.com', 'first-password');
    t.equal(old.api_key, key, 'same account, same key');
    const newPw = await api(second.url, null, null, 'POST', 'fetch_api_key', { username: 'hamlet@zulip.com', password: 'second-password' });
    t.equal(newPw.status, 401, 'the new demo password was not applied');
    const users2 = await api<{ members: unknown[] }>(second.url, 'hamlet@zulip.com', key, 'GET', 'users');
    t.equal(users2.body.members.length, users1.body.members.length, 'no duplicated demo users');
    const next = await api<{ id: number }>(second.url, 'hamlet@zulip.com', key, 'POST', 'messages', {
      type: 'stream', to: 'Verona', topic: 'restart', content: 'after restart',
    });
    t.equal(next.body.id, sent.body.id + 1, 'no demo messages were added: ids continue by one');
  });

  await t.test('store created offline, then serve with the demo on (default)', async (t) => {
    const dataDir = makeTempDir(t);
    t.equal((await runCli(['create-realm', '--name', 'Acme', '--data-dir', dataDir])).code, 0);
    t.equal(
      (await runCli(['create-user', '--email', 'ann@acme.com', '--full-name', 'Ann', '--password', 'ann password', '--data-dir', dataDir])).code,
      0,
    );
    const server = await startServer({ t, dataDir });
    t.notMatch(server.stdout(), /created the demo organization/);
    const hamlet = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'hamlet@zulip.com', password: 'parley-e2e-password' });
    t.match(hamlet, { status: 401, body: { code: 'AUTHENTICATION_FAILED' } }, 'no demo accounts');
    const settings = await api(server.url, null, null, 'GET', 'server_settings');
    t.equal(settings.body.realm_name, 'Acme');
    await fetchApiKey(server.url, 'ann@acme.com', 'ann password');
  });
});

t.test('a second server on a busy port is refused, not silently sharing it', async (t) => {
  const first = await startServer({ t, demoPassword: 'pw' });
  const other = makeTempDir(t);
  const second = await runCli(['serve', '--port', String(first.port), '--data-dir', other, '--no-demo']);
  t.equal(second.code, 1);
  t.match(second.stderr, `cannot listen on 127.0.0.1:${first.port}: EADDRINUSE (address already in use`);
  t.notMatch(second.stdout, /parley listening/);
  const offline = await runCli(['create-realm', '--name', 'After', '--data-dir', other]);
  t.equal(offline.code, 0, 'the refused server released its data directory');
});
