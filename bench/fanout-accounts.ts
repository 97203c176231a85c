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
export async function login(call: ApiCall, email: string, password: string): Promise<Account> {
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
  const created = await createAccounts(call, admin, 'fanout', missing);
  for (const email of created.emails) accounts.push(await login(call, email, created.password));
  await subscribe(call, admin, channel, created.ids);
  return accounts;
}

/** Accounts made by `createAccounts`: user ids and emails in creation order, and their one password. */
export interface CreatedAccounts {
  ids: number[];
  emails: string[];
  password: string;
}

/**
 * Creates `count` accounts `<prefix>-1@zulip.com`… with `POST /users` as `admin` (an owner), a few
 * at a time (each creation hashes a password). Throws with the server's answer when one fails.
 */
export async function createAccounts(call: ApiCall, admin: Account, prefix: string, count: number): Promise<CreatedAccounts> {
  const password = `${prefix} ${randomBytes(12).toString('hex')}`;
  const emails = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}@zulip.com`);
  const ids: number[] = new Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const body = await call(admin, 'POST', '/users', { email: emails[i]!, password, full_name: `${prefix} ${i + 1}` });
      if (body.result !== 'success') throw new Error(`creating ${emails[i]} failed: ${JSON.stringify(body)}`);
      ids[i] = body.user_id as number;
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, count) }, worker));
  return { ids, emails, password };
}

/** Subscribes `principals` (user ids or emails) to `channel` (created if missing) as `admin`; throws on failure. */
export async function subscribe(call: ApiCall, admin: Account, channel: string, principals: ReadonlyArray<number | string>): Promise<void> {
  const body = await call(admin, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: channel }]), principals: JSON.stringify(principals) });
  if (body.result !== 'success') throw new Error(`subscribing ${principals.length} users to ${channel} failed: ${JSON.stringify(body)}`);
}
