/**
 * Incoming webhooks: Zulip's `/api/v1/external/{integration}` framework (zerver/decorator.py
 * `webhook_view`, zerver/lib/webhooks/common.py `check_send_webhook_message`,
 * https://zulip.com/api/incoming-webhooks-overview).
 *
 * - Authentication: the `api_key` parameter (query string or form body), as Zulip's
 *   `webhook_view`, or HTTP Basic `email:api_key`. Any active account's key works (an incoming
 *   webhook bot's is the usual one). Missing: "Missing 'api_key' argument"; wrong: 401 "Invalid
 *   API key"; deactivated: 401 "Account is deactivated".
 * - Destination: with `stream` (a channel name, or an id when all digits) the message goes to that
 *   channel, in the integration's topic unless `topic` is given; without `stream` it is a direct
 *   message to the bot's owner (to the account itself when it has no owner). A channel that does
 *   not exist is not an error for the caller (Zulip swallows `StreamDoesNotExistError`).
 * - `only_events` / `exclude_events` (JSON lists of shell-style patterns) filter by the
 *   integration's event type, as Zulip does.
 * - Each integration (one file each in this folder) turns the request into zero or more messages,
 *   or throws Zulip's webhook errors (`Errors.unsupportedWebhookEvent`: HTTP 200;
 *   `Errors.anomalousWebhookPayload`, `Errors.missingHttpEventHeader`, "Malformed JSON": 400).
 * Messages are sent with the client name `Zulip<Name>Webhook`, as `webhook_view` names it.
 */
import { Errors, ZulipError } from '../../errors.js';
import type { User } from '../../domain/realm-state.js';
import type { RealmHandle } from '../../realm/realm-handle.js';
import { parseBasicAuth } from '../../auth/basic-auth.js';
import { keysEqual } from '../../auth/api-keys.js';
import { findUserByEmail } from '../../domain/users.js';

/** What an integration reads from the request. */
export interface WebhookRequest {
  /** The request body as UTF-8 text (whatever its Content-Type). */
  readonly rawBody: string;
  /** Request headers, names lower-case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Query-string and form parameters (last value wins). */
  readonly params: ReadonlyMap<string, string>;
  /** The body parsed as JSON, or Zulip's "Malformed JSON" (400). */
  json(): unknown;
}

/** One message an integration asks to send. */
export interface WebhookMessage {
  topic: string;
  body: string;
  /** The event type `only_events` / `exclude_events` filter on (Zulip's `complete_event_type`). */
  eventType?: string;
}

/** An integration: its display name (errors, client name) and the request → messages function. */
export interface Integration {
  /** Zulip's `webhook_view` name, e.g. `GitHub`, `SlackIncoming`. */
  readonly name: string;
  handle(request: WebhookRequest): WebhookMessage[];
}

/** The account a webhook request authenticates as, or the error to answer. */
export function webhookPrincipal(realm: RealmHandle | null, apiKey: string | undefined, authorization: string | undefined): User | ZulipError {
  if (realm === null) return Errors.invalidApiKey();
  let user: User | undefined;
  if (apiKey !== undefined) {
    const id = realm.state.usersByApiKey.get(apiKey.trim());
    user = id === undefined ? undefined : realm.state.users.get(id);
    if (user === undefined) return Errors.invalidApiKey();
  } else {
    const credentials = parseBasicAuth(authorization);
    if (credentials === null) return Errors.missingArgument('api_key');
    if (credentials instanceof ZulipError) return credentials;
    const found = findUserByEmail(realm.state, credentials.email);
    if (found === undefined || !keysEqual(found.apiKey, credentials.apiKey)) return Errors.invalidApiKey();
    user = found;
  }
  if (realm.state.settings.deactivated) return Errors.realmDeactivatedApi();
  if (!user.isActive) return Errors.accountDeactivatedApi();
  return user;
}

/** Python's `fnmatch` (shell patterns `*`, `?`, `[...]`) on a whole string. */
export function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        let set = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        re += `[${set}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

/** Zulip's event filter of `check_send_webhook_message`: whether `eventType` is wanted. */
export function eventWanted(eventType: string | undefined, onlyEvents: readonly string[] | undefined, excludeEvents: readonly string[] | undefined): boolean {
  if (eventType === undefined) return true;
  if (onlyEvents !== undefined && onlyEvents.every((p) => !fnmatch(eventType, p))) return false;
  if (excludeEvents !== undefined && excludeEvents.some((p) => fnmatch(eventType, p))) return false;
  return true;
}

/** A JSON list-of-strings parameter (`only_events`), or the parameter error. */
export function stringListParam(name: string, raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ZulipError('BAD_REQUEST', `Argument "${name}" is not valid JSON.`);
  }
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ZulipError('BAD_REQUEST', `${name} is not a list`);
  return value as string[];
}

/** Sends the integration's messages as `user` (see the module header); the first error, or null. */
export async function sendWebhookMessages(
  realm: RealmHandle,
  user: User,
  integration: Integration,
  messages: readonly WebhookMessage[],
  target: { stream?: string; topic?: string },
): Promise<ZulipError | null> {
  const client = `Zulip${integration.name}Webhook`;
  for (const message of messages) {
    const result = target.stream === undefined
      ? await realm.execute({ type: 'send_message', senderId: user.id, messageType: 'private', to: [user.botOwnerId ?? user.id], topic: undefined, content: message.body, client })
      : await realm.execute({
          type: 'send_message', senderId: user.id, messageType: 'stream',
          to: /^\d+$/.test(target.stream) ? Number(target.stream) : target.stream,
          topic: (target.topic ?? message.topic).trim(), content: message.body, client,
        });
    if (!result.ok && result.error.code !== 'STREAM_DOES_NOT_EXIST') return result.error;
  }
  return null;
}

/** Reads `obj[key]` as a string, or throws Zulip's anomalous-payload error naming the integration. */
export function str(name: string, value: unknown): string {
  if (typeof value !== 'string') throw Errors.anomalousWebhookPayload(name);
  return value;
}

/** A JSON object, or the anomalous-payload error. */
export function obj(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw Errors.anomalousWebhookPayload(name);
  return value as Record<string, unknown>;
}

/** A JSON array, or the anomalous-payload error. */
export function arr(name: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw Errors.anomalousWebhookPayload(name);
  return value;
}
