/**
 * Adding and removing alert words (https://zulip.com/api/add-alert-words,
 * https://zulip.com/api/remove-alert-words; Zulip's `zerver/views/alert_words.py`,
 * `zerver/actions/alert_words.py` `do_add_alert_words` / `do_remove_alert_words`). The endpoint has
 * already stripped the words, dropped blank ones (`clean_alert_words`, add only) and checked their
 * length. Words are compared case-insensitively; an add keeps the spelling given.
 *
 * Each command replies with the user's whole list and, like Zulip, always sends the `alert_words`
 * event to the user (even when nothing changed; a record only when something did).
 */
import { ok, fail, Errors } from '../../errors.js';
import { alertWordsOf, withAlertWords, withoutAlertWords, type AlertWordsChanged } from '../../domain/alert-words.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { Decision, Handler, RealmView } from '../decision.js';

/** `POST /users/me/alert_words` (`add`) or `DELETE /users/me/alert_words` (`remove`). */
export interface ChangeAlertWords {
  type: 'change_alert_words';
  actorId: number;
  op: 'add' | 'remove';
  words: string[];
}

/** Replies of the alert-word commands (merged into `CommandReplies`). */
export interface AlertWordReplies {
  change_alert_words: { alert_words: string[] };
}

function decision(state: RealmView, userId: number, words: string[]): Decision<{ alert_words: string[] }> {
  const before = alertWordsOf(state, userId);
  const same = before.length === words.length && before.every((w, i) => w === words[i]);
  const records: AlertWordsChanged[] = same ? [] : [{ type: 'alert_words_changed', v: 1, userId, words }];
  const payload: EventPayloadOf<'alert_words'> = { type: 'alert_words', alert_words: words };
  return { records, events: [{ userIds: [userId], payload }], reply: { alert_words: words } };
}

export const changeAlertWords: Handler<ChangeAlertWords, { alert_words: string[] }> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const current = alertWordsOf(state, actor.id);
  const words = cmd.op === 'add' ? withAlertWords(current, cmd.words) : withoutAlertWords(current, cmd.words);
  return ok(decision(state, actor.id, words));
};
