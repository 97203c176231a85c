/**
 * `applyEvent`: folds one client event into a register state (a client-side model of Zulip's
 * zerver/lib/events.py `apply_event`), the fold step of `verifyAction`. The unread, user, channel
 * and subscription folds live in their own files.
 */
import { applySubscriptionEvent } from './subscription-folds.js';
import { applyStreamEvent } from './stream-folds.js';
import { applyRealmEvent } from './realm-folds.js';
import { applyScheduledEvent } from './scheduled-folds.js';
import { ascending, applyUnreadMessage, applyUpdateMessageFlags, moveUnreadMessages, removeUnreadMessage } from './unread-folds.js';
import { applyRealmUserAdd, applyRealmUserAdminUpdate } from './user-folds.js';

type Json = Record<string, any>;

/** What a fold may need beyond the event (Zulip's apply_event queries the database for some). */
export interface FoldContext {
  /** `max_message_id` and `recent_private_conversations` read after the events (delete_message). */
  refetched?: Json;
}

/**
 * Folds one event into a register state, as a Zulip client (and Zulip's `apply_event`) would.
 * Throws on an event type it does not know: add the fold together with the event.
 */
export function applyEvent(state: Json, event: Json, user: { id: number }, ctx: FoldContext = {}): void {
  switch (event.type) {
    case 'delete_message': {
      // Zulip's apply_event: max_message_id re-read; the ids leave unread_msgs; a direct message
      // re-reads recent_private_conversations. (Clients also drop them from starred_messages.)
      const ids: number[] = event.message_ids ?? [event.message_id];
      if ('max_message_id' in state) {
        if (ctx.refetched === undefined) throw new Error('applyEvent: delete_message needs the refetched state');
        state.max_message_id = ctx.refetched.max_message_id;
      }
      if (state.unread_msgs !== undefined) for (const id of ids) removeUnreadMessage(state.unread_msgs, state, id);
      if (Array.isArray(state.starred_messages)) state.starred_messages = state.starred_messages.filter((id: number) => !ids.includes(id));
      if (event.message_type === 'private' && Array.isArray(state.recent_private_conversations)) {
        if (ctx.refetched === undefined) throw new Error('applyEvent: delete_message needs the refetched state');
        state.recent_private_conversations = structuredClone(ctx.refetched.recent_private_conversations);
      }
      return;
    }
    case 'update_message': {
      // Zulip's apply_event: unread messages follow a topic/channel change (content is not in
      // the register state).
      if (state.unread_msgs !== undefined && (event.subject !== undefined || event.new_stream_id !== undefined)) {
        moveUnreadMessages(state.unread_msgs, state, event);
      }
      return;
    }
    case 'message': {
      const message: Json = event.message;
      const flags: string[] = event.flags;
      if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, message.id);
      if (state.unread_msgs !== undefined && !flags.includes('read')) {
        applyUnreadMessage(state.unread_msgs, state, message, flags, user);
      }
      if (message.type === 'private') {
        const conversations = state.recent_private_conversations as Json[] | undefined;
        if (conversations !== undefined) {
          const userIds = (message.display_recipient as Json[]).map((r) => r.id as number).filter((id) => id !== user.id).sort(ascending);
          const key = userIds.join(',');
          let conversation = conversations.find((c) => (c.user_ids as number[]).join(',') === key);
          if (conversation === undefined) conversations.push((conversation = { user_ids: userIds, max_message_id: message.id }));
          conversation.max_message_id = Math.max(conversation.max_message_id, message.id);
          conversations.sort((a, b) => b.max_message_id - a.max_message_id);
        }
        return;
      }
      // first_message_id of the channel wherever the state lists it.
      for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
        for (const stream of (state[key] as Json[] | undefined) ?? []) {
          if (stream.stream_id === message.stream_id && stream.first_message_id === null) stream.first_message_id = message.id;
        }
      }
      return;
    }
    case 'user_topic': {
      // Zulip's apply_event: drop the row for 0, else update it in place (matched
      // case-insensitively, keeping its spelling) or append it.
      const rows = state.user_topics as Json[] | undefined;
      if (rows === undefined) return;
      const lower = (event.topic_name as string).toLowerCase();
      const i = rows.findIndex((r) => r.stream_id === event.stream_id && (r.topic_name as string).toLowerCase() === lower);
      if (event.visibility_policy === 0) {
        if (i >= 0) rows.splice(i, 1);
      } else if (i >= 0) {
        rows[i] = { ...rows[i], last_updated: event.last_updated, visibility_policy: event.visibility_policy };
      } else {
        rows.push({ stream_id: event.stream_id, topic_name: event.topic_name, last_updated: event.last_updated, visibility_policy: event.visibility_policy });
      }
      return;
    }
    case 'user_status': {
      // Zulip's apply_event: merge the supplied keys; '' / false remove them; an empty entry goes.
      const all = state.user_status as Json | undefined;
      if (all === undefined) return;
      const key = String(event.user_id);
      const entry: Json = all[key] ?? {};
      if (event.away !== undefined) {
        if (event.away) entry.away = true;
        else delete entry.away;
      }
      if (event.status_text !== undefined) {
        if (event.status_text === '') delete entry.status_text;
        else entry.status_text = event.status_text;
      }
      if (event.emoji_name !== undefined) {
        if (event.emoji_name === '') {
          delete entry.emoji_name;
          delete entry.emoji_code;
          delete entry.reaction_type;
        } else {
          Object.assign(entry, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type });
        }
      }
      if (Object.keys(entry).length === 0) delete all[key];
      else all[key] = entry;
      return;
    }
    case 'realm_linkifiers':
      // Zulip's apply_event: replaces the list (it stays [] for clients without `linkifier_url_template`).
      if ('realm_linkifiers' in state) state.realm_linkifiers = structuredClone(event.realm_linkifiers);
      return;
    case 'muted_topics':
      if ('muted_topics' in state) state.muted_topics = event.muted_topics;
      return;
    case 'realm_emoji':
      // Zulip's apply_event: the event carries the whole dict, deactivated emoji included.
      if ('realm_emoji' in state) state.realm_emoji = structuredClone(event.realm_emoji);
      return;
    case 'user_group': {
      // Zulip's apply_event for realm_user_groups (kept sorted by id; member lists ascending).
      const groups = state.realm_user_groups as Json[] | undefined;
      if (groups === undefined) return;
      if (event.op === 'add') {
        groups.push(structuredClone(event.group));
        groups.sort((a, b) => a.id - b.id);
        return;
      }
      if (event.op === 'remove') {
        state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
        return;
      }
      const group = groups.find((g) => g.id === event.group_id);
      if (group === undefined) return;
      const merge = (key: string, ids: number[], add: boolean) => {
        const set = new Set<number>(group[key]);
        for (const id of ids) (add ? set.add(id) : set.delete(id));
        group[key] = [...set].sort(ascending);
      };
      if (event.op === 'update') Object.assign(group, event.data);
      else if (event.op === 'add_members') merge('members', event.user_ids, true);
      else if (event.op === 'remove_members') merge('members', event.user_ids, false);
      else if (event.op === 'add_subgroups') merge('direct_subgroup_ids', event.direct_subgroup_ids, true);
      else if (event.op === 'remove_subgroups') merge('direct_subgroup_ids', event.direct_subgroup_ids, false);
      return;
    }
    case 'stream':
      applyStreamEvent(state, event);
      return;
    case 'realm':
      applyRealmEvent(state, event, user.id);
      return;
    case 'default_streams':
      if ('realm_default_streams' in state) state.realm_default_streams = [...event.default_streams];
      return;
    case 'realm_playgrounds':
      if ('realm_playgrounds' in state) state.realm_playgrounds = structuredClone(event.realm_playgrounds);
      return;
    case 'realm_domains':
      if (!('realm_domains' in state)) return;
      if (event.op === 'add') state.realm_domains = [...state.realm_domains, structuredClone(event.realm_domain)];
      else if (event.op === 'change') state.realm_domains = state.realm_domains.map((d: { domain: string }) => (d.domain === event.realm_domain.domain ? structuredClone(event.realm_domain) : d));
      else state.realm_domains = state.realm_domains.filter((d: { domain: string }) => d.domain !== event.domain);
      return;
    case 'realm_user_settings_defaults':
      if ('realm_user_settings_defaults' in state) (state.realm_user_settings_defaults as Record<string, unknown>)[event.property] = event.value;
      return;
    case 'subscription':
      applySubscriptionEvent(state, event, user);
      return;
    case 'presence': {
      // Zulip's apply_event refetches the user's row; the event's `website` entry is that row's
      // legacy form. Slim: a presence event is only sent when the user became active, so both
      // timestamps are the event's. Every event follows exactly one change of the realm's
      // counter (FL 263 `presence_last_update_id`, not carried by the event).
      const all = state.presences as Json | undefined;
      if (all === undefined) return;
      const site = event.presence.website;
      if (event.email === undefined) {
        all[String(event.user_id)] = { active_timestamp: site.timestamp, idle_timestamp: site.timestamp };
      } else {
        all[event.email] = { aggregated: { client: 'website', status: site.status, timestamp: site.timestamp }, website: { ...site } };
      }
      if (typeof state.presence_last_update_id === 'number') state.presence_last_update_id += 1;
      return;
    }
    case 'custom_profile_fields':
      if ('custom_profile_fields' in state) state.custom_profile_fields = structuredClone(event.fields);
      return;
    case 'realm_user': {
      // Zulip's apply_event for realm_user update with custom_profile_field (null value removes it).
      const field = event.person?.custom_profile_field;
      if (event.op === 'update' && field === undefined) {
        applyRealmUserAdminUpdate(state, event.person, user);
        return;
      }
      if (event.op === 'add') {
        applyRealmUserAdd(state, event.person);
        return;
      }
      if (event.op !== 'update' || field === undefined) throw new Error(`applyEvent: no fold for realm_user ${JSON.stringify(event)}`);
      for (const person of (state.realm_users as Json[] | undefined) ?? []) {
        if (person.user_id !== event.person.user_id || person.profile_data === undefined) continue;
        if (field.value === null) delete person.profile_data[String(field.id)];
        else person.profile_data[String(field.id)] = field.rendered_value === undefined ? { value: field.value } : { value: field.value, rendered_value: field.rendered_value };
      }
      return;
    }
    case 'navigation_view': {
      // Zulip's apply_event: append, update the supplied keys in place, or drop by fragment.
      const views = state.navigation_views as Json[] | undefined;
      if (views === undefined) return;
      if (event.op === 'add') views.push(structuredClone(event.navigation_view));
      else if (event.op === 'update') {
        const view = views.find((v) => v.fragment === event.fragment);
        if (view !== undefined) Object.assign(view, event.data);
      } else if (event.op === 'remove') {
        const i = views.findIndex((v) => v.fragment === event.fragment);
        if (i >= 0) views.splice(i, 1);
      } else throw new Error(`applyEvent: no fold for navigation_view ${JSON.stringify(event)}`);
      return;
    }
    case 'channel_folder': {
      // Zulip's apply_event: append (Zulip then sorts by id; parley keeps the register order,
      // `order` then id — a new folder's order is its id, so it sorts last either way), update
      // the given keys in place, or set each folder's order to its (last) index and sort by it.
      const folders = state.channel_folders as Json[] | undefined;
      if (folders === undefined) return;
      const byOrder = (a: Json, b: Json) => a.order - b.order || a.id - b.id;
      if (event.op === 'add') {
        folders.push(structuredClone(event.channel_folder));
        folders.sort(byOrder);
      } else if (event.op === 'update') {
        const folder = folders.find((f) => f.id === event.channel_folder_id);
        if (folder !== undefined) Object.assign(folder, event.data);
      } else if (event.op === 'reorder') {
        const position = new Map<number, number>();
        (event.order as number[]).forEach((id, i) => position.set(id, i));
        for (const folder of folders) folder.order = position.get(folder.id);
        folders.sort(byOrder);
      } else throw new Error(`applyEvent: no fold for channel_folder ${JSON.stringify(event)}`);
      return;
    }
    case 'drafts': {
      // Zulip's apply_event adds, replaces or drops by id; /register lists drafts most recently
      // edited first, so an added or edited draft goes before every draft of the same (integer)
      // second: it is the latest edit of that second.
      const drafts = state.drafts as Json[] | undefined;
      if (drafts === undefined) return;
      const insert = (draft: Json) => {
        const i = drafts.findIndex((d) => d.timestamp <= draft.timestamp);
        drafts.splice(i < 0 ? drafts.length : i, 0, structuredClone(draft));
      };
      if (event.op === 'add') for (const draft of event.drafts) insert(draft);
      else if (event.op === 'update' || event.op === 'remove') {
        const id = event.op === 'update' ? event.draft.id : event.draft_id;
        const i = drafts.findIndex((d) => d.id === id);
        if (i < 0) throw new Error(`applyEvent: drafts ${event.op} of unknown draft ${id}`);
        drafts.splice(i, 1);
        if (event.op === 'update') insert(event.draft);
      } else throw new Error(`applyEvent: no fold for drafts ${JSON.stringify(event)}`);
      return;
    }
    case 'scheduled_messages':
    case 'reminders':
      applyScheduledEvent(state, event);
      return;
    case 'realm_bot': {
      // Zulip's apply_event for realm_bot add (kept sorted by id, as register sorts), update and delete.
      const bots = state.realm_bots as Json[] | undefined;
      if (bots === undefined) return;
      if (event.op === 'update') {
        const bot = bots.find((b) => b.user_id === event.bot.user_id);
        if (bot !== undefined) Object.assign(bot, event.bot);
        return;
      }
      if (event.op === 'delete') {
        const i = bots.findIndex((b) => b.user_id === event.bot.user_id);
        if (i >= 0) bots.splice(i, 1);
        return;
      }
      if (event.op !== 'add') throw new Error(`applyEvent: no fold for realm_bot ${JSON.stringify(event)}`);
      bots.push(structuredClone(event.bot));
      bots.sort((a, b) => a.user_id - b.user_id);
      return;
    }
    case 'user_settings':
      // Zulip's apply_event: the property in `user_settings` (and, without user_settings_object,
      // its legacy top-level copy, which arrives as its own legacy event).
      if (event.op !== 'update') throw new Error(`applyEvent: no fold for user_settings ${JSON.stringify(event)}`);
      if (state.user_settings !== undefined) state.user_settings[event.property] = event.value;
      // Turning draft synchronisation off deletes the server's drafts without drafts events
      // (Zulip's do_change_user_setting; clients keep their local copies): /register lists none.
      if (event.property === 'enable_drafts_synchronization' && event.value === false && Array.isArray(state.drafts)) state.drafts = [];
      return;
    case 'update_display_settings':
      if (event.setting_name in state) state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      if (event.notification_name in state) state[event.notification_name] = event.setting;
      return;
    case 'submessage':
      // Zulip's apply_event ignores it: no register state holds submessages (clients patch messages).
      return;
    case 'reaction':
      // Zulip's apply_event: no register state holds reactions (clients patch their messages).
      return;
    case 'update_message_flags':
      applyUpdateMessageFlags(state, event, user);
      return;
    case 'typing':
    case 'heartbeat':
    case 'invites_changed':
      // No state.
      return;
    case 'attachment':
      // No /register state (Zulip's apply_event ignores it: it feeds the uploads UI only).
      return;
    case 'muted_users':
      // Zulip's apply_event: the whole list replaces the old one.
      if (state.muted_users !== undefined) state.muted_users = structuredClone(event.muted_users);
      return;
    case 'alert_words':
      if (state.alert_words !== undefined) state.alert_words = [...event.alert_words];
      return;
    case 'saved_snippets': {
      // Zulip's apply_event: append, replace by id, or drop by id.
      const snippets = state.saved_snippets as Json[] | undefined;
      if (snippets === undefined) return;
      if (event.op === 'add') snippets.push(structuredClone(event.saved_snippet));
      else if (event.op === 'update' || event.op === 'remove') {
        const id = event.op === 'update' ? event.saved_snippet.id : event.saved_snippet_id;
        const i = snippets.findIndex((s) => s.id === id);
        if (i < 0) throw new Error(`applyEvent: saved_snippets ${event.op} of unknown snippet ${id}`);
        if (event.op === 'update') snippets[i] = structuredClone(event.saved_snippet);
        else snippets.splice(i, 1);
      } else throw new Error(`applyEvent: no fold for saved_snippets ${JSON.stringify(event)}`);
      return;
    }
    case 'typing_edit_message':
      // No state.
      return;
    default:
      throw new Error(`applyEvent: no fold for event type ${JSON.stringify(event.type)} (add one with the event)`);
  }
}
