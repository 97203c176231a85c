/**
 * Missed-message emails (Zulip's zerver/tornado/event_queue.py `maybe_enqueue_notifications` →
 * `missedmessage_emails` queue → zerver/worker/missedmessage_emails.py, and
 * zerver/lib/email_notifications.py `handle_missedmessage_emails`), outside the realm actors:
 *
 * 1. Every durable `message` event is looked at (`onEvents`, subscribed to the registry's event
 *    fan-out, so a mail is never about a message that could be lost). A recipient (not the
 *    sender, not a bot, active) is a candidate when the message is a direct message to them, or
 *    mentions them personally or through a group, or is a channel / topic wildcard mention while
 *    their `wildcard_mentions_notify` is on and the channel / topic is not muted for them
 *    (zerver/lib/notification_data.py
 *    `UserMessageNotificationsData`), their `enable_offline_email_notifications` is on, and they
 *    are offline: no event queue (`receiver_is_off_zulip`) or no `active` presence report in the
 *    last 140 s (`OFFLINE_THRESHOLD_SECS`, presence idle).
 * 2. Candidates wait per user for their `email_notifications_batching_period_seconds` (default
 *    120 s) counted from the first pending message (Zulip's `ScheduledMessageNotificationEmail`).
 * 3. `tick(now)` mails each due batch: messages read (the `read` flag) or deleted meanwhile are
 *    dropped; one mail per conversation (channel topic or direct-message thread), with the content
 *    unless the user's `message_content_in_email_notifications` or the realm's
 *    `message_content_allowed_in_email_notifications` is off.
 *
 * The clock is injected (`now`, UNIX seconds), and `start` runs `tick` on a timer (unref'd), so
 * tests drive the whole flow with a controllable clock. Pending batches live in memory only
 * (Zulip keeps them in a table): a restart forgets them. Bounded: at most `MAX_PENDING_MESSAGES`
 * waiting messages in all; beyond, new candidates are dropped (logged).
 */
import type { RealmEvent } from '../events/realm-event.js';
import type { RealmHandle } from './realm-handle.js';
import type { User } from '../domain/realm-state.js';
import { personalSetting } from '../domain/user-settings.js';
import { Flag } from '../domain/message-index.js';
import { mutedMessageTest } from '../domain/narrow-muting.js';
import type { Mailer } from '../mail/mailer.js';
import { missedMessageEmail, type MissedMessageLine } from '../mail/emails.js';
import { log } from '../log.js';

/** Zulip's `OFFLINE_THRESHOLD_SECS`: no `active` presence for this long = idle. */
export const OFFLINE_THRESHOLD_SECONDS = 140;
/** Most messages waiting for a mail, all users together. */
export const MAX_PENDING_MESSAGES = 100_000;
/** How often the timer checks for due batches, seconds. */
export const TICK_SECONDS = 5;

/** Why a message notifies (Zulip's trigger names). */
export type MissedMessageTrigger = 'direct_message' | 'mentioned' | 'stream_wildcard_mentioned' | 'topic_wildcard_mentioned';

interface PendingMessage {
  messageId: number;
  trigger: MissedMessageTrigger;
  senderId: number;
  senderName: string;
  /** Raw Markdown. */
  raw: string;
  /** `stream:<id>:<topic>` or `dm:<sorted user ids>`. */
  conversation: string;
  streamId: number | null;
  streamName: string | null;
  topic: string | null;
  /** The other participants of a direct message (not the recipient), in id order. */
  dmUserIds: number[];
}

interface PendingBatch {
  /** UNIX seconds when the batch is due. */
  dueAt: number;
  messages: PendingMessage[];
}

/** What the job needs from the server. */
export interface MissedMessageDeps {
  /** The realm with this id, if loaded. */
  realm(realmId: number): RealmHandle | undefined;
  /** Whether the user has any event queue (Zulip: a client that accepts messages). */
  hasEventQueue(realmId: number, userId: number): boolean;
  mailer: Mailer;
  /** Clock, UNIX seconds (default: wall clock). */
  now?: () => number;
}

const setting = (user: User, name: string) => personalSetting(user, name);

/** Zulip's `encode_hash_component`: URL-quoted, then `.` → `.2E` and `%` → `.`. */
function hashComponent(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/\./g, '%2E').replace(/%/g, '.');
}

/** The job (see the module comment). */
export class MissedMessageEmails {
  /** `<realmId>:<userId>` → the user's waiting batch. */
  private readonly pending = new Map<string, PendingBatch>();
  private pendingCount = 0;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly deps: MissedMessageDeps) {
    this.now = deps.now ?? (() => Date.now() / 1000);
  }

  /** Messages waiting, all users together. */
  get waiting(): number {
    return this.pendingCount;
  }

  /** Runs `tick` every `tickSeconds` (default 5 s) on the injected clock. */
  start(tickSeconds = TICK_SECONDS): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick()).catch((error: unknown) => log.error({ event: 'missed_message_email', err: error }, 'tick failed'));
    }, tickSeconds * 1000);
    this.timer.unref();
  }

  /** Stops the timer (pending batches are dropped with the process, as documented). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** The registry's event listener: notes the offline recipients of each new message. */
  onEvents(realmId: number, _commandSeq: number, events: readonly RealmEvent[]): void {
    for (const event of events) {
      if (event.payload.type !== 'message' || event.message === undefined) continue;
      const realm = this.deps.realm(realmId);
      if (realm === undefined) continue;
      this.noteMessage(realm, event);
    }
  }

  private noteMessage(realm: RealmHandle, event: RealmEvent): void {
    const now = this.now();
    if ((event.payload as { message: { type: string } }).message.type === 'private') {
      for (const userId of event.userIds) this.noteRecipient(realm, event, userId, now);
    } else {
      // A channel message mails only users it flags (`triggerFor`), and `flags` lists exactly
      // those: no walk over every subscriber of the channel.
      for (const key in event.message!.flags) this.noteRecipient(realm, event, Number(key), now);
    }
  }

  /** Queues a mail about `event`'s message for `userId` when they are an offline candidate. */
  private noteRecipient(realm: RealmHandle, event: RealmEvent, userId: number, now: number): void {
    const payload = event.payload as { message: { id: number; type: string; sender_id: number; sender_full_name: string; stream_id?: number; subject: string; display_recipient: unknown } };
    const message = payload.message;
    const extras = event.message!;
    const state = realm.state;
    if (userId === message.sender_id) return;
    const user = state.users.get(userId);
    if (user === undefined || !user.isActive || user.isBot) return;
    const flags = extras.flags[userId] ?? [];
    const trigger = this.triggerFor(user, message.type === 'private', flags);
    if (trigger === null || !this.isOffline(realm, userId, now)) return;
    // Wildcard mentions do not notify in a muted channel or topic (Zulip's
    // `user_allows_notifications_in_StreamTopic`); personal and group mentions do.
    if ((trigger === 'stream_wildcard_mentioned' || trigger === 'topic_wildcard_mentioned') && mutedMessageTest(state, user, null)?.(message.id) === true) return;
    if (this.pendingCount >= MAX_PENDING_MESSAGES) {
      log.warn({ event: 'missed_message_email', realm: realm.subdomain, user: userId }, 'too many pending missed-message emails: dropped');
      return;
    }
    const dmUserIds = Array.isArray(message.display_recipient)
      ? (message.display_recipient as Array<{ id: number }>).map((r) => r.id).filter((id) => id !== userId).sort((a, b) => a - b)
      : [];
    const streamId = message.type === 'stream' ? (message.stream_id ?? null) : null;
    const entry: PendingMessage = {
      messageId: message.id,
      trigger,
      senderId: message.sender_id,
      senderName: message.sender_full_name,
      raw: extras.raw,
      conversation: streamId === null ? `dm:${[...dmUserIds, userId].sort((a, b) => a - b).join(',')}` : `stream:${streamId}:${message.subject.toLowerCase()}`,
      streamId,
      streamName: streamId === null ? null : String(message.display_recipient),
      topic: streamId === null ? null : message.subject,
      dmUserIds,
    };
    const key = `${realm.id}:${userId}`;
    const batch = this.pending.get(key);
    if (batch === undefined) {
      const period = Number(setting(user, 'email_notifications_batching_period_seconds') ?? 120);
      this.pending.set(key, { dueAt: now + period, messages: [entry] });
    } else {
      batch.messages.push(entry);
    }
    this.pendingCount++;
  }

  /** Zulip's `UserMessageNotificationsData` email triggers, or null when this message mails nobody. */
  private triggerFor(user: User, isDirect: boolean, flags: readonly string[]): MissedMessageTrigger | null {
    // A channel message without flags (most of them, sent to every subscriber) never triggers:
    // answered before looking up the user's settings.
    if (!isDirect && flags.length === 0) return null;
    if (setting(user, 'enable_offline_email_notifications') !== true) return null;
    if (isDirect) return 'direct_message';
    if (flags.includes('mentioned') || flags.includes('group_mentioned')) return 'mentioned';
    if (setting(user, 'wildcard_mentions_notify') !== true) return null;
    if (flags.includes('topic_wildcard_mentioned')) return 'topic_wildcard_mentioned';
    if (flags.includes('stream_wildcard_mentioned')) return 'stream_wildcard_mentioned';
    return null;
  }

  /** Off Zulip (no event queue) or presence idle for `OFFLINE_THRESHOLD_SECONDS`. */
  private isOffline(realm: RealmHandle, userId: number, now: number): boolean {
    if (!this.deps.hasEventQueue(realm.id, userId)) return true;
    const lastActive = realm.state.presence.get(userId)?.lastActiveTime ?? null;
    return lastActive === null || now - lastActive > OFFLINE_THRESHOLD_SECONDS;
  }

  /** Mails every batch due at `now` (default: the clock). Returns the number of mails queued. */
  tick(now = this.now()): number {
    let mails = 0;
    for (const [key, batch] of this.pending) {
      if (batch.dueAt > now) continue;
      this.pending.delete(key);
      this.pendingCount -= batch.messages.length;
      const [realmId, userId] = key.split(':').map(Number) as [number, number];
      const realm = this.deps.realm(realmId);
      if (realm !== undefined) mails += this.mailBatch(realm, userId, batch.messages);
    }
    return mails;
  }

  private mailBatch(realm: RealmHandle, userId: number, messages: PendingMessage[]): number {
    const state = realm.state;
    const user = state.users.get(userId);
    if (user === undefined || !user.isActive) return 0;
    // Still unread and not deleted (`handle_missedmessage_emails` filters on `read` and existence).
    const unread = messages.filter((m) => {
      const flags = state.messages.userFlags(userId, m.messageId);
      return flags !== undefined && (flags & Flag.read) === 0;
    });
    const byConversation = new Map<string, PendingMessage[]>();
    for (const m of unread) {
      const list = byConversation.get(m.conversation);
      if (list === undefined) byConversation.set(m.conversation, [m]);
      else if (!list.some((x) => x.messageId === m.messageId)) list.push(m);
    }
    const withContent = setting(user, 'message_content_in_email_notifications') === true && state.settings.messageContentAllowedInEmailNotifications !== false;
    let sent = 0;
    for (const list of byConversation.values()) {
      list.sort((a, b) => a.messageId - b.messageId);
      if (this.deps.mailer.send(this.composeMail(realm, user, list, withContent))) sent++;
    }
    return sent;
  }

  private composeMail(realm: RealmHandle, user: User, list: PendingMessage[], withContent: boolean) {
    const first = list[0]!;
    const names = (ids: number[]) => ids.map((id) => realm.state.users.get(id)?.fullName ?? 'Unknown user');
    let subject: string;
    let narrowTitle: string;
    let link: string;
    if (first.streamId !== null) {
      subject = `#${first.streamName} > ${first.topic}`;
      narrowTitle = subject;
      link = `${realm.url}/#narrow/channel/${first.streamId}-${hashComponent(first.streamName!.replace(/ /g, '-'))}/topic/${hashComponent(first.topic!)}/near/${first.messageId}`;
    } else if (first.dmUserIds.length <= 1) {
      const other = names(first.dmUserIds)[0] ?? first.senderName;
      subject = `DMs with ${other}`;
      narrowTitle = `You and ${other}`;
      link = `${realm.url}/#narrow/dm/${first.dmUserIds[0] ?? first.senderId}-${hashComponent(other)}/near/${first.messageId}`;
    } else {
      const others = names(first.dmUserIds);
      const joined = others.length === 2 ? `${others[0]} and ${others[1]}` : `${others.slice(0, -1).join(', ')}, and ${others.at(-1)}`;
      subject = `Group DMs with ${joined}`;
      narrowTitle = `You and ${others.join(', ')}`;
      link = `${realm.url}/#narrow/dm/${[...first.dmUserIds, user.id].sort((a, b) => a - b).join(',')}-group/near/${first.messageId}`;
    }
    const lines: MissedMessageLine[] = list.map((m) => ({ senderName: m.senderName, content: withContent ? m.raw : null }));
    const reason = first.trigger === 'direct_message' ? 'sent you a direct message' : first.trigger === 'mentioned' ? 'mentioned you' : 'mentioned everyone';
    return missedMessageEmail({
      to: user.email,
      realmName: realm.state.settings.name,
      realmUrl: realm.url,
      narrowTitle,
      subject,
      link,
      messages: lines,
      reason,
      settingsUrl: `${realm.url}/#settings/notifications`,
    });
  }
}
