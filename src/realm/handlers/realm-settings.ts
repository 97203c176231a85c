/** `set_announcement_channels` (see the command's docstring). */
import { ok, fail, Errors } from '../../errors.js';
import type { CommandReplies, SetAnnouncementChannels } from '../commands.js';
import type { Handler } from '../decision.js';

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
