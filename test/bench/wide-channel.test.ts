/**
 * The wide channel of `channelSubscribers` scenarios (bench/wide-channel.ts) on a real server:
 * created accounts plus the bench account are its subscribers, a send there reaches them, and a
 * second request for the same size reuses the channel instead of creating accounts again.
 */
import t from 'tap';
import { startTestServer, DEMO_PASSWORD } from '../support/test-server.js';
import { api } from '../support/server-process.js';
import { login, type ApiCall } from '../../bench/fanout-accounts.js';
import { WideChannels } from '../../bench/wide-channel.js';

t.test('a channel with N created subscribers and the bench account', async (t) => {
  const s = await startTestServer(t, { rateLimits: false });
  let creations = 0;
  const call: ApiCall = async (account, method, path, params) => {
    if (method === 'POST' && path === '/users') creations++;
    return (await api(s.url, account?.email ?? null, account?.key ?? null, method, path, params)).body;
  };
  const wide = new WideChannels(call, 'desdemona@zulip.com', DEMO_PASSWORD, 'hamlet@zulip.com');
  const name = await wide.channel(6);
  t.equal(name, 'bench wide 6');
  t.equal(creations, 6, 'six accounts created');
  t.equal(await wide.channel(6), name, 'the same size again: the same channel');
  t.equal(creations, 6, 'and no new accounts');

  const hamlet = await login(call, 'hamlet@zulip.com', DEMO_PASSWORD);
  const streams = await call(hamlet, 'GET', '/users/me/subscriptions', {});
  const sub = (streams.subscriptions as Array<{ name: string; stream_id: number }>).find((x) => x.name === name);
  t.ok(sub, 'the bench account is subscribed');
  const members = await call(hamlet, 'GET', `/streams/${sub!.stream_id}/members`, {});
  t.equal((members.subscribers as number[]).length, 7, 'six created subscribers plus the bench account');
  const sent = await call(hamlet, 'POST', '/messages', { type: 'stream', to: name, topic: 'bench', content: 'wide' });
  t.equal(sent.result, 'success');
  const created = await call(await login(call, 'desdemona@zulip.com', DEMO_PASSWORD), 'GET', '/users', {});
  const someone = (created.members as Array<{ email: string }>).find((u) => u.email === 'wide6-3@zulip.com');
  t.ok(someone, 'created accounts are named after the channel size');

  const other = await wide.channel(2);
  t.equal(other, 'bench wide 2', 'another size: another channel');
  t.equal(creations, 8);
});

t.test('a failed creation is reported with the server answer', async (t) => {
  const s = await startTestServer(t, { rateLimits: false });
  const call: ApiCall = async (account, method, path, params) => (await api(s.url, account?.email ?? null, account?.key ?? null, method, path, params)).body;
  // Hamlet is not an owner: POST /users is refused.
  const wide = new WideChannels(call, 'hamlet@zulip.com', DEMO_PASSWORD, 'hamlet@zulip.com');
  await t.rejects(wide.channel(2), /creating wide2-[12]@zulip.com failed: .*"result":"error"/);
});
