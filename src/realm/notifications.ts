/**
 * Notification Bot messages about channels (https://zulip.com/api/subscribe,
 * https://zulip.com/api/update-stream; Zulip 11's
 * `zerver/actions/streams.py` wording, "channel" rather than "stream" as at feature level 417):
 * built as `internal_send` follow-up commands (`Decision.followUps`), so they are decided after
 * the change they describe is applied and land in the same commit.
 *
 * Names are referenced with Zulip's silent mention `@_**Full Name|id**` and channel links
 * `#**name**`, which the Markdown renderer turns into mention spans and channel links.
 */
import type { RealmState, Stream, User } from '../domain/realm-state.js';
import type { InternalSend } from './commands.js';

/** Zulip's topic for channel creation and change notices (`STREAM_EVENTS_NOTIFICATION_TOPIC_NAME`). */
export const CHANNEL_EVENTS_TOPIC = 'channel events';
/** Zulip's topic for `announce` messages in the new-channel announcements channel. */
export const NEW_CHANNELS_TOPIC = 'new channels';

const silentMention = (user: User): string => `@_**${user.fullName}|${user.id}**`;
const mention = (user: User): string => `@**${user.fullName}|${user.id}**`;
const channelLink = (name: string): string => `#**${name}**`;
const quote = (text: string): string => `\`\`\`\` quote\n${text}\n\`\`\`\``;

/** The notices' topic in `stream`: the empty topic when the channel allows only that one. */
function eventsTopic(stream: Pick<Stream, 'topicsPolicy'>): string {
  return stream.topicsPolicy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC;
}

function toChannel(streamId: number, topic: string, content: string): InternalSend {
  return { type: 'internal_send', bot: 'notification', messageType: 'stream', to: streamId, topic, content };
}

/** Zulip's name of a channel's access policy (`get_stream_permission_policy_key`). */
export function channelPolicyName(stream: Pick<Stream, 'isWebPublic' | 'inviteOnly' | 'historyPublicToSubscribers'>): string {
  if (stream.isWebPublic) return 'Web-public';
  if (!stream.inviteOnly) return 'Public';
  return stream.historyPublicToSubscribers ? 'Private, shared history' : 'Private, protected history';
}

/** The first message of a new channel, in its "channel events" topic. */
export function channelCreatedNotice(actor: User, stream: Stream): InternalSend {
  const description = stream.description === '' ? '*No description.*' : stream.description;
  return toChannel(
    stream.id,
    eventsTopic(stream),
    `**${channelPolicyName(stream)}** channel created by ${silentMention(actor)}. **Description:**\n${quote(description)}`,
  );
}

/**
 * `announce=true`: one message in the realm's new-channel announcements channel naming the
 * created channels; none when the realm has no such channel (or it is archived).
 */
export function newChannelsAnnouncement(state: RealmState, actor: User, names: readonly string[]): InternalSend[] {
  const target = state.settings.newStreamAnnouncementsStreamId ?? null;
  if (target === null || names.length === 0 || state.streams.get(target)?.isArchived !== false) return [];
  const content =
    names.length === 1
      ? `${silentMention(actor)} created a new channel ${channelLink(names[0]!)}.`
      : `${silentMention(actor)} created the following channels: ${names.map(channelLink).join(', ')}.`;
  return [toChannel(target, NEW_CHANNELS_TOPIC, content)];
}

/**
 * Direct messages to users someone else subscribed (`send_subscription_add_notifications`): not to
 * the actor, not to bots, and not about channels created by the same request.
 */
export function subscribedYouNotices(state: RealmState, actor: User, namesByUser: ReadonlyMap<number, readonly string[]>): InternalSend[] {
  const out: InternalSend[] = [];
  for (const [userId, names] of namesByUser) {
    const user = state.users.get(userId);
    if (user === undefined || user.isBot || userId === actor.id || names.length === 0) continue;
    const content =
      names.length === 1
        ? `${mention(actor)} subscribed you to the channel ${channelLink(names[0]!)}.`
        : `${mention(actor)} subscribed you to the following channels:\n\n${names.map((n) => `* ${channelLink(n)}\n`).join('')}`;
    out.push({ type: 'internal_send', bot: 'notification', messageType: 'private', to: [userId], content });
  }
  return out;
}

/** `PATCH /streams/{id}` notices in the channel's "channel events" topic (rename, description, access). */
export function channelChangeNotices(
  actor: User,
  before: Stream,
  after: Pick<Stream, 'name' | 'description' | 'isWebPublic' | 'inviteOnly' | 'historyPublicToSubscribers'>,
): InternalSend[] {
  const out: InternalSend[] = [];
  const who = silentMention(actor);
  const topic = eventsTopic(before);
  if (after.name !== before.name) {
    out.push(toChannel(before.id, topic, `${who} renamed channel **${before.name}** to **${after.name}**.`));
  }
  if (after.description !== before.description) {
    const old = before.description === '' ? '*No description.*' : before.description;
    const now = after.description === '' ? '*No description.*' : after.description;
    out.push(toChannel(before.id, topic,
      `${who} changed the description for this channel.\n\n* **Old description:**\n${quote(old)}\n* **New description:**\n${quote(now)}`));
  }
  const oldPolicy = channelPolicyName(before);
  const newPolicy = channelPolicyName(after);
  if (oldPolicy !== newPolicy) {
    out.push(toChannel(before.id, topic,
      `${who} changed the [access permissions](/help/channel-permissions) for this channel from **${oldPolicy}** to **${newPolicy}**.`));
  }
  return out;
}

/** Welcome Bot's first direct message to a new user (a short form of Zulip's onboarding message). */
export const WELCOME_TEXT =
  "Hello, and welcome to Zulip!\u{1F44B} This is a direct message from me, Welcome Bot.\n\n" +
  'Conversations here are organized by **channels** and **topics**: read and reply topic by topic, ' +
  'and start a new topic whenever you change the subject.\n\n' +
  'Explore the channels of this organization and subscribe to the ones you care about.';

/**
 * Welcome Bot messages to a user who just joined (Zulip's `send_initial_direct_messages_to_user`):
 * the welcome message, then the invitation's custom text when an administrator set one
 * (`welcome_message_custom_text`: null = the organization's `welcome_message_custom_text`;
 * "" = none).
 */
export function welcomeMessages(state: RealmState, userId: number, customText: string | null): InternalSend[] {
  const out: InternalSend[] = [{ type: 'internal_send', bot: 'welcome', messageType: 'private', to: [userId], content: WELCOME_TEXT }];
  const text = customText ?? state.settings.welcomeMessageCustomText ?? '';
  if (text.trim() !== '') {
    out.push({ type: 'internal_send', bot: 'welcome', messageType: 'private', to: [userId], content: text });
  }
  return out;
}
