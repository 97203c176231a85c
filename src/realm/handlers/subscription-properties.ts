/**
 * `set_subscription_properties` (https://zulip.com/api/update-subscription-settings): a user's own
 * settings for channels they
 * are subscribed to — color, muting (`is_muted`, legacy `in_home_view`), pinning, notifications.
 */
import { ok, fail, Errors } from '../../errors.js';
import { accessStreamById } from '../../domain/access.js';
import type { RealmRecord } from '../../domain/records.js';
import { SUBSCRIPTION_PROPERTY_FIELDS } from '../../domain/subscriptions.js';
import type { CommandReplies } from '../commands.js';
import type { Handler, RealmEvent } from '../decision.js';

/** Changes of the actor's own subscription settings (zulip-behavior.md §3.6). */
export interface SetSubscriptionProperties {
  type: 'set_subscription_properties';
  actorId: number;
  changes: Array<{ streamId: number; property: string; value: unknown }>;
}

const HEX_COLOR = /^#([a-fA-F0-9]{3,6})$/;

/**
 * `set_subscription_properties` (https://zulip.com/api/update-subscription-settings): validates
 * every change before any is
 * applied; `in_home_view` is stored as `is_muted` (negated) and both events are sent.
 */
export const setSubscriptionProperties: Handler<SetSubscriptionProperties, CommandReplies['set_subscription_properties']> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  for (const change of cmd.changes) {
    const { property, value, streamId } = change;
    if (property !== 'in_home_view' && !(property in SUBSCRIPTION_PROPERTY_FIELDS)) {
      return fail(Errors.badRequest(`Unknown subscription property: ${property}`));
    }
    // Zulip's `update_subscription_properties_backend`: `access_stream_by_id`, then the subscription.
    const access = accessStreamById(state, actor, streamId, { requireActive: false });
    if (!access.ok) return access;
    if (!access.value.subscribed) return fail(Errors.badRequest(`Not subscribed to channel ID ${streamId}`));
    if (property === 'color') {
      if (typeof value !== 'string') return fail(Errors.badRequest('color is not a string'));
      if (!HEX_COLOR.test(value)) return fail(Errors.badRequest('color is not a valid hex color code'));
    } else if (typeof value !== 'boolean') {
      return fail(Errors.badRequest(`${property} is not a boolean`));
    }
    const stored = property === 'in_home_view' ? 'is_muted' : property;
    const storedValue = property === 'in_home_view' ? !value : (value as string | boolean);
    records.push({ type: 'subscription_property_changed', v: 1, streamId, userId: actor.id, property: stored, value: storedValue });
    const update = (p: string, v: string | boolean): RealmEvent => ({ userIds: [actor.id], payload: { type: 'subscription', op: 'update', stream_id: streamId, property: p, value: v } });
    if (stored === 'is_muted') {
      events.push(update('in_home_view', !storedValue), update('is_muted', storedValue));
    } else {
      events.push(update(stored, storedValue));
    }
  }
  return ok({ records, events, reply: {} });
};

