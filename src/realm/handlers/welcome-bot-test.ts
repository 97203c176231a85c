/**
 * `POST /realm/test_welcome_bot_custom_message` (FL 416; Zulip's
 * zerver/views/welcome_bot_custom_message.py `send_test_welcome_bot_custom_message`): an
 * administrator previews a custom welcome text: Welcome Bot sends it (only it) to them as a direct
 * message. Errors: not an administrator ("Must be an organization administrator"), an empty text
 * ("Message must not be empty"), over 8000 characters (Zulip's length error). Reply: the message id.
 */
import { fail, Errors } from '../../errors.js';
import { requireRealmAdmin } from '../../domain/access.js';
import { MAX_WELCOME_MESSAGE_LENGTH, welcomeTextTooLong } from '../../domain/invites.js';
import type { Handler } from '../decision.js';
import { internalSend } from './internal-send.js';

/** The command of `POST /realm/test_welcome_bot_custom_message`. */
export interface TestWelcomeBotMessage {
  type: 'test_welcome_bot_message';
  actorId: number;
  text: string;
}

/** Reply: the id of the message Welcome Bot sent. */
export interface WelcomeBotTestReplies {
  test_welcome_bot_message: { id: number };
}

export const testWelcomeBotMessage: Handler<TestWelcomeBotMessage, WelcomeBotTestReplies['test_welcome_bot_message']> = (state, cmd, ctx) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  if (cmd.text.length > MAX_WELCOME_MESSAGE_LENGTH) return fail(Errors.badRequest(welcomeTextTooLong()));
  if (cmd.text.length === 0) return fail(Errors.badRequest('Message must not be empty'));
  return internalSend(state, { type: 'internal_send', bot: 'welcome', messageType: 'private', to: [admin.value.id], content: cmd.text }, ctx);
};
