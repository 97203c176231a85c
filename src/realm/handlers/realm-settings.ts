/** `set_announcement_channels` (see the command's docstring). */
import { ok, fail, Errors } from '../../errors.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';

/**
 * Set the channels receiving Notification Bot announcements of new channels and new users
 * (Zulip's `new_stream_announcements_stream` / `signup_announcements_stream`); undefined =
 * unchanged, null = none. Used by the demo organization; no endpoint yet.
 */
export interface SetAnnouncementChannels {
  type: 'set_announcement_channels';
  newStreams?: number | null;
  signups?: number | null;
}

export const setAnnouncementChannels: Handler<SetAnnouncementChannels, CommandReplies['set_announcement_channels']> = (state, cmd) => {
  for (const id of [cmd.newStreams, cmd.signups]) {
    if (typeof id === 'number' && state.streams.get(id)?.isArchived !== false) return fail(Errors.badRequest('Invalid channel ID'));
  }
  return ok({
    records: [{
      type: 'realm_settings_changed', v: 1,
      changes: {
        ...(cmd.newStreams !== undefined && { newStreamAnnouncementsStreamId: cmd.newStreams }),
        ...(cmd.signups !== undefined && { signupAnnouncementsStreamId: cmd.signups }),
      },
    }],
    events: [],
    reply: {},
  });
};
