/**
 * Alert words (https://zulip.com/api/get-alert-words, https://zulip.com/api/add-alert-words,
 * https://zulip.com/api/remove-alert-words; Zulip's zerver/views/alert_words.py):
 * - `GET /users/me/alert_words` → `{alert_words: [...]}` in the order they were added;
 * - `POST /users/me/alert_words`, `alert_words` = JSON list of strings (required), each at most
 *   100 characters ("alert_words[i] is too long (limit: 100 characters)"); words are stripped and
 *   blank ones dropped (`clean_alert_words`) → `{alert_words}` after the change;
 * - `DELETE /users/me/alert_words`, same parameter (not cleaned, as in Zulip) → `{alert_words}`.
 * Matching and the `has_alert_word` flag: `domain/alert-words.ts`, `realm/personal-flags.ts`.
 */
import Type from 'typebox';
import { alertWordsOf, MAX_ALERT_WORD_LENGTH } from '../domain/alert-words.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

const WORDS = P.json(Type.Array(Type.String({ maxLength: MAX_ALERT_WORD_LENGTH })), { required: true });

/** Zulip's `clean_alert_words`: stripped (Python `str.strip()`), blank ones dropped. */
const clean = (words: readonly string[]) => words.map((w) => w.replace(/^\s+|\s+$/gu, '')).filter((w) => w !== '');

/** `GET /users/me/alert_words` (Zulip's `list_alert_words`). */
export const listAlertWords = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {},
  handler: ({ realm, user }) => ({ alert_words: [...alertWordsOf(realm.state, user.id)] }),
});

/** `POST /users/me/alert_words` (Zulip's `add_alert_words`). */
export const addAlertWords = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { alert_words: WORDS },
  handler: ({ realm, user, params }) =>
    runCommand(realm, { type: 'change_alert_words', actorId: user.id, op: 'add', words: clean(params.alert_words as string[]) }, (r) => r),
});

/** `DELETE /users/me/alert_words` (Zulip's `remove_alert_words`). */
export const removeAlertWords = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { alert_words: WORDS },
  handler: ({ realm, user, params }) =>
    runCommand(realm, { type: 'change_alert_words', actorId: user.id, op: 'remove', words: params.alert_words as string[] }, (r) => r),
});
