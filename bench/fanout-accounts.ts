/**
 * Receiver accounts for the fan-out scenarios on a parley the bench started itself: the demo users,
 * plus as many created accounts as it takes to hold the queues, since one user holds at most
 * `MAX_QUEUES_PER_USER` event queues (events/event-queues.ts) and more registrations drop that
 * user's oldest queue. Created accounts (`fanout-N@zulip.com`) are made by the owner with
 * `POST /users` and subscribed to the channel the sender posts to. Works over HTTP (fanout.ts) or
 * in-process through the dispatcher (fanout-server.ts): the caller passes how to call the API.
 */
import { randomBytes } from 'node:crypto';
import { MAX_QUEUES_PER_USER } from '../src/events/event-queues.js';
import type { Account } from './fanout.js';

/** Calls the API as `account` (null: unauthenticated); resolves with the decoded JSON body. */
export type ApiCall = (account: Account | null, method: string, path: string, params: Record<string, string>) => Promise<Record<string, any>>;

/** Logs in with `POST /fetch_api_key`; throws with the server's answer on failure. */
async function login(call: ApiCall, email: string, password: string): Promise<Account> {
  const body = await call(null, 'POST', '/fetch_api_key', { username: email, password });
  if (body.result !== 'success') throw new Error(`fetch_api_key for ${email} failed: ${JSON.stringify(body)}`);
  return { email, key: body.api_key as string };
}

/**
 * Accounts that together can hold `queues` queues: `demo` (emails, logging in with `password`) first,
 * then created ones. `owner` must be an organization owner. Throws with the server's answer when a
 * creation, subscription or login fails.
 */
export async function fanoutReceivers(call: ApiCall, demo: readonly string[], password: string, owner: string, queues: number, channel: string): Promise<Account[]> {
  const accounts: Account[] = [];
  for (const email of demo) accounts.push(await login(call, email, password));
  const missing = Math.ceil(queues / MAX_QUEUES_PER_USER) - accounts.length;
  if (missing <= 0) return accounts;
  const admin = await login(call, owner, password);
  const createdPassword = `fanout ${randomBytes(12).toString('hex')}`;
  const ids: number[] = [];
  for (let i = 1; i <= missing; i++) {
    const email = `fanout-${i}@zulip.com`;
    const body = await call(admin, 'POST', '/users', { email, password: createdPassword, full_name: `Fan-out ${i}` });
    if (body.result !== 'success') throw new Error(`creating ${email} failed: ${JSON.stringify(body)}`);
    ids.push(body.user_id as number);
    accounts.push(await login(call, email, createdPassword));
  }
  const subscribed = await call(admin, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: channel }]), principals: JSON.stringify(ids) });
  if (subscribed.result !== 'success') throw new Error(`subscribing the fan-out accounts to ${channel} failed: ${JSON.stringify(subscribed)}`);
  return accounts;
}
