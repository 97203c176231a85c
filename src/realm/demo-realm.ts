/**
 * The demo organization (Zulip's development cast), created on an empty store when demo mode is
 * on: real clients need users, channels and a few messages to show. Everything goes through the
 * realm actor as ordinary commands, so the demo is durable like any other data.
 */
import { Role } from '../domain/realm-state.js';
import { DEMO_BOT_EMAIL, DEMO_PUBLIC_STREAMS, DEMO_USERS } from '../domain/demo-cast.js';
import type { RealmRegistry } from './realm-registry.js';
import type { RealmActor } from './realm-actor.js';

/** Channels every human demo user is subscribed to. */
const EVERYONE_STREAMS = new Set(['Verona', 'Denmark', 'Scotland']);

const DEMO_MESSAGES: ReadonlyArray<{ from: string; to: string | string[]; topic?: string; content: string }> = [
  { from: 'iago@zulip.com', to: 'Verona', topic: 'welcome', content: 'Welcome to **Verona**! This is the demo organization of parley.' },
  { from: 'hamlet@zulip.com', to: 'Verona', topic: 'welcome', content: 'Thanks, Iago. Is this thing on?' },
  { from: 'othello@zulip.com', to: 'Verona', topic: 'welcome', content: 'Loud and clear. Try `/me waves` or some *Markdown*.' },
  { from: 'hamlet@zulip.com', to: 'Denmark', topic: 'castle', content: 'Something is rotten in the state of Denmark.' },
  { from: 'hamlet@zulip.com', to: ['othello@zulip.com'], content: 'Hi Othello, this is a direct message.' },
  { from: 'othello@zulip.com', to: ['hamlet@zulip.com'], content: 'Hello, Hamlet! Received.' },
];

/**
 * Creates the root-domain demo realm in one commit (a crash leaves no demo or the whole demo).
 * `passwordHash` is the argon2id hash of the demo password, shared by every human account.
 */
export function createDemoRealm(registry: RealmRegistry, passwordHash: string): Promise<RealmActor> {
  return registry.createRealm('', 'Zulip Dev', 'The demo organization of parley.', (run) => {
    const ids = new Map<string, number>();
    for (const [email, fullName, role] of DEMO_USERS) {
      const { userId } = run({
        type: 'create_user', email, fullName, role, passwordHash, isBot: false, botType: null, botOwnerId: null, timezone: '',
      });
      ids.set(email, userId);
    }
    run({
      type: 'create_user', email: DEMO_BOT_EMAIL, fullName: 'Zulip Default Bot', role: Role.member, passwordHash: null,
      isBot: true, botType: 1, botOwnerId: ids.get('hamlet@zulip.com')!, timezone: '',
    });
    const humans = [...ids.values()];
    const streamIds = new Map<string, number>();
    for (const name of DEMO_PUBLIC_STREAMS) {
      const { streamId } = run({
        type: 'create_channel', actorId: null, name, description: `The ${name} channel.`, inviteOnly: false, isWebPublic: false,
        isDefault: EVERYONE_STREAMS.has(name), subscriberIds: EVERYONE_STREAMS.has(name) ? humans : [],
      });
      streamIds.set(name, streamId);
    }
    // As Zulip's development realm: announcements go to Verona.
    run({ type: 'set_announcement_channels', newStreams: streamIds.get('Verona')!, signups: streamIds.get('Verona')! });
    run({
      type: 'create_channel', actorId: null, name: 'core team', description: 'A private channel for the core team.',
      inviteOnly: true, isWebPublic: false, isDefault: false,
      subscriberIds: ['desdemona@zulip.com', 'iago@zulip.com', 'hamlet@zulip.com'].map((e) => ids.get(e)!),
    });
    for (const m of DEMO_MESSAGES) {
      run({
        type: 'send_message', senderId: ids.get(m.from)!, messageType: Array.isArray(m.to) ? 'private' : 'stream',
        to: m.to, topic: m.topic, content: m.content, client: 'parley demo', readBySender: true,
      });
    }
  });
}
