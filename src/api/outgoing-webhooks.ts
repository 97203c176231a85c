/**
 * Outgoing webhook bots (bot_type 3; https://zulip.com/api/outgoing-webhooks, Zulip's
 * zerver/actions/message_send.py `get_service_bot_events`, zerver/worker/outgoing_webhooks.py,
 * zerver/lib/outgoing_webhook.py `do_rest_call`).
 *
 * Runs beside the realm actors, never inside them: it listens to the events the realms publish
 * once a message is durable, and for each new message that mentions an outgoing webhook bot in a
 * channel (`mention`, silent mentions excluded) or is a direct message to one (`direct_message`)
 * it POSTs the bot's service (request bodies: outgoing-webhook-messages.ts). Messages sent by
 * bots never trigger (Zulip's loop guard). At most `maxConcurrent` requests are in flight and at
 * most `maxQueued` wait; more are dropped with a warning (Zulip's queue has no bound, but a
 * single process must not grow without one).
 *
 * Outcomes, as Zulip's `do_rest_call`:
 * - 2xx: the answer's content (`content` / `response_string`, Slack `text`) is posted by the bot
 *   in the same conversation, unless `response_not_required` or empty; an unreadable answer
 *   posts "Failure! <why>" there and tells the owner;
 * - other status: the bot's owner gets a DM (from the bot) with the status and payload;
 * - refused address (private network; Smokescreen's 407 in Zulip): the owner is told;
 * - timeout or connection error: retried `maxRetries` times (Zulip's MAX_REQUEST_RETRIES = 3),
 *   then "Failure! Bot is unavailable" in the conversation and a DM to the owner.
 * Replies are sent through the realm's `send_message` command as the bot with client
 * `OutgoingWebhookResponse`, skipping channel access checks as Zulip's `send_response_message`
 * does (`skip_stream_access_check`), here the command's `internal` flag. Pending work is lost on
 * restart (Zulip keeps it in RabbitMQ).
 */
import { log } from '../log.js';
import { botSettings } from '../domain/bots.js';
import { apiEmail } from '../domain/users.js';
import type { RealmEvent } from '../events/realm-event.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { SendMessage } from '../realm/commands.js';
import { messageUrl } from '../realm/handlers/message-move.js';
import {
  ownerNoticeText, replyFailure, replyFromAnswer, retryFailure, webhookRequest,
  type OwnerNotice, type WebhookMessage, type WebhookTrigger,
} from './outgoing-webhook-messages.js';

/** How a POST ended (http/webhook-client.ts `postWebhook`): an HTTP answer, or why there was none. */
export type WebhookPostResult =
  | { kind: 'response'; status: number; body: Buffer }
  /** The address is private, loopback, reserved... */
  | { kind: 'refused' }
  | { kind: 'timeout' }
  /** DNS failure, connection refused or reset, bad URL. */
  | { kind: 'connection_error'; message: string };

/** Options of {@link OutgoingWebhooks}. */
export interface OutgoingWebhookOptions {
  /** The realm with this id, if it is open. */
  realm(realmId: number): RealmHandle | undefined;
  /** One POST (url, body, content type), with the address rule and time limit applied. */
  post(url: string, body: string, contentType: string): Promise<WebhookPostResult>;
  /** The POST's time limit, seconds (named in the timeout notice; Zulip's default 10). */
  timeoutSeconds: number;
  maxConcurrent?: number;
  maxQueued?: number;
  /** Retries after a timeout or connection error (default 3). */
  maxRetries?: number;
  /** Wait before a retry, milliseconds (default 1000). */
  retryDelayMs?: number;
}

interface Job extends WebhookTrigger {
  failedTries: number;
}

/** Non-silent user mentions of rendered HTML (Zulip's `mentions_user_ids`). */
const MENTION = /<span class="user-mention" data-user-id="(\d+)">/g;

/** Remembers the last message ids seen, so a message published in several events triggers once. */
const SEEN_LIMIT = 10_000;

export class OutgoingWebhooks {
  private readonly queue: Job[] = [];
  private running = 0;
  private closed = false;
  private readonly seen = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: OutgoingWebhookOptions) {
    this.maxConcurrent = options.maxConcurrent ?? 4;
    this.maxQueued = options.maxQueued ?? 1000;
    this.maxRetries = options.maxRetries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
  }

  /** The event listener: finds the triggers among a realm's published events. */
  onEvents(realmId: number, events: readonly RealmEvent[]): void {
    if (this.closed) return;
    try {
      this.findTriggers(realmId, events);
    } catch (error) {
      // A listener must never break event delivery to the other listeners.
      log.error({ err: error, realm: realmId }, 'outgoing webhook trigger scan failed');
    }
  }

  private findTriggers(realmId: number, events: readonly RealmEvent[]): void {
    for (const event of events) {
      if (event.payload.type !== 'message' || event.message === undefined) continue;
      // The send path's common case: a channel message without a user mention costs one scan.
      if (event.payload.message.type === 'stream' && !event.payload.message.content.includes('user-mention')) continue;
      const realm = this.options.realm(realmId);
      if (realm === undefined) return;
      const wire = event.payload.message;
      const key = `${realmId}:${wire.id}`;
      if (this.seen.has(key)) continue;
      const triggers = this.triggersOf(realm, wire);
      if (triggers.length === 0) continue;
      this.seen.add(key);
      if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
      const message: WebhookMessage = { ...wire, content: event.message.raw, rendered_content: wire.content, content_type: 'text/x-markdown' };
      for (const { botId, trigger } of triggers) this.enqueue({ realmId, botId, trigger, message, failedTries: 0 });
    }
  }

  /** Resolves when nothing is queued, running or waiting for a retry. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking work and drops pending retries; requests in flight finish. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.settle();
  }

  /** Zulip's `get_service_bot_events` for outgoing webhook bots. */
  private triggersOf(realm: RealmHandle, wire: Omit<WebhookMessage, 'rendered_content'>): Array<{ botId: number; trigger: WebhookTrigger['trigger'] }> {
    const state = realm.state;
    const sender = state.users.get(wire.sender_id);
    if (sender === undefined || sender.isBot) return [];
    const isService = (id: number) => {
      const user = state.users.get(id);
      return user !== undefined && user.isActive && user.botType === 3 && botSettings(user).service !== undefined;
    };
    if (wire.type === 'private') {
      const ids = Array.isArray(wire.display_recipient) ? wire.display_recipient.map((r) => r.id) : [];
      return ids.filter((id) => id !== sender.id && isService(id)).map((botId) => ({ botId, trigger: 'direct_message' as const }));
    }
    const mentioned = new Set<number>();
    for (const m of wire.content.matchAll(MENTION)) mentioned.add(Number(m[1]));
    return [...mentioned].filter(isService).map((botId) => ({ botId, trigger: 'mention' as const }));
  }

  private enqueue(job: Job): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueued) {
      log.warn({ realm: job.realmId, bot: job.botId, message: job.message.id }, 'outgoing webhook queue full: request dropped');
      return;
    }
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      void this.run(job)
        .catch((error: unknown) => log.error({ err: error, bot: job.botId }, 'outgoing webhook failed'))
        .finally(() => {
          this.running--;
          this.pump();
          this.settle();
        });
    }
  }

  private isIdle(): boolean {
    return this.running === 0 && this.queue.length === 0 && this.timers.size === 0;
  }

  private settle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** One attempt (Zulip's `do_rest_call`). */
  private async run(job: Job): Promise<void> {
    const realm = this.options.realm(job.realmId);
    const bot = realm?.state.users.get(job.botId);
    const service = bot === undefined ? undefined : botSettings(bot).service;
    if (realm === undefined || bot === undefined || !bot.isActive || service === undefined) return;
    if (service.interface === 2 && job.message.type === 'private') {
      await this.reply(realm, job, "Failure! Slack outgoing webhooks don't support direct messages.");
      return;
    }
    const request = webhookRequest(service, { email: apiEmail(bot, realm.host), fullName: bot.fullName }, job, { id: realm.id, host: realm.host });
    const result = await this.options.post(service.baseUrl, request.body, request.contentType);
    switch (result.kind) {
      case 'response': {
        if (result.status < 200 || result.status > 299) return this.notifyOwner(realm, job, { statusCode: result.status, responseContent: result.body });
        const answer = replyFromAnswer(service, result.body.toString('utf8'));
        if ('error' in answer) {
          await this.reply(realm, job, `Failure! ${answer.error}`);
          return this.notifyOwner(realm, job, { failureMessage: replyFailure(answer.error) });
        }
        if (answer.content === null) return;
        const error = await this.reply(realm, job, answer.content);
        if (error !== null) {
          await this.reply(realm, job, `Failure! ${error}`);
          return this.notifyOwner(realm, job, { failureMessage: replyFailure(error) });
        }
        return;
      }
      case 'refused':
        return this.notifyOwner(realm, job, { statusCode: 407 });
      case 'timeout':
        return this.retry(job, retryFailure.timeout(this.options.timeoutSeconds));
      case 'connection_error':
        return this.retry(job, retryFailure.connection(job.message.content));
    }
  }

  /** Zulip's `request_retry`: again later, or give up with the failure notices. */
  private async retry(job: Job, failureMessage: string): Promise<void> {
    job.failedTries++;
    if (job.failedTries > this.maxRetries) {
      const realm = this.options.realm(job.realmId);
      if (realm === undefined) return;
      await this.reply(realm, job, 'Failure! Bot is unavailable');
      await this.notifyOwner(realm, job, { failureMessage });
      return;
    }
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(job);
      this.settle();
    }, this.retryDelayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** The bot posts `content` where the message was (`send_response_message`); the error text, or null. */
  private async reply(realm: RealmHandle, job: Job, content: string): Promise<string | null> {
    const m = job.message;
    const target: Pick<SendMessage, 'messageType' | 'to' | 'topic'> = m.type === 'stream'
      ? { messageType: 'stream', to: m.stream_id, topic: m.subject }
      : { messageType: 'private', to: Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], topic: undefined };
    return this.send(realm, job.botId, target, content);
  }

  /** Zulip's `notify_bot_owner`: a DM from the bot to its owner. */
  private async notifyOwner(realm: RealmHandle, job: Job, notice: OwnerNotice): Promise<void> {
    const bot = realm.state.users.get(job.botId);
    if (bot === undefined || bot.botOwnerId === null) return;
    const text = ownerNoticeText(this.messageLink(realm, job.message), bot.fullName, notice);
    await this.send(realm, bot.id, { messageType: 'private', to: [bot.botOwnerId], topic: undefined }, text);
  }

  /** Zulip's `near_message_url`. */
  private messageLink(realm: RealmHandle, m: WebhookMessage): string {
    const stream = m.stream_id === undefined ? undefined : realm.state.streams.get(m.stream_id);
    if (m.type === 'stream' && stream !== undefined) return messageUrl(realm.state, stream, m.subject, m.id);
    const ids = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).join(',') : '';
    return `${realm.state.url}/#narrow/dm/${ids}-pm/near/${m.id}`;
  }

  private async send(realm: RealmHandle, botId: number, target: Pick<SendMessage, 'messageType' | 'to' | 'topic'>, content: string): Promise<string | null> {
    try {
      const result = await realm.execute({ type: 'send_message', senderId: botId, ...target, content, client: 'OutgoingWebhookResponse', internal: true });
      return result.ok ? null : result.error.message;
    } catch (error) {
      log.warn({ err: error, bot: botId }, 'outgoing webhook reply not sent');
      return 'Internal server error';
    }
  }
}
