/**
 * Alert words (https://zulip.com/api/get-alert-words; Zulip's `zerver/lib/alert_words.py`,
 * `zerver/actions/alert_words.py`, and the matcher `AlertWordNotificationProcessor` in
 * `zerver/lib/markdown/__init__.py`): per user, words or phrases that flag a received message
 * `has_alert_word`. Zulip only sets the flag; highlighting the word is done by the clients.
 *
 * State shape: `RealmState.alertWords` = user id → words in the order they were added (case
 * kept; unique case-insensitively); a user without words has no entry. Optional: states built by
 * hand and snapshots written before alert words lack it.
 */
import type { RealmState } from './realm-state.js';

/** A user's alert words became `words` (the whole list after an add or a remove). */
export interface AlertWordsChanged {
  type: 'alert_words_changed';
  v: 1;
  userId: number;
  words: string[];
}

/** Zulip's `AlertWord.MAX_WORD_LENGTH` (characters). */
export const MAX_ALERT_WORD_LENGTH = 100;

/** A user's words (a shared empty list when none: do not mutate). */
export function alertWordsOf(state: RealmState, userId: number): readonly string[] {
  return state.alertWords?.get(userId) ?? [];
}

/** Zulip's `add_user_alert_words`: the list after adding `words`, skipping case-insensitive repeats. */
export function withAlertWords(current: readonly string[], words: readonly string[]): string[] {
  const seen = new Set(current.map((w) => w.toLowerCase()));
  const added = new Map<string, string>();
  // Zulip keeps the last spelling of a repeated new word (a dict keyed by the lower-cased word).
  for (const w of words) if (!seen.has(w.toLowerCase())) added.set(w.toLowerCase(), w);
  return [...current, ...added.values()];
}

/** Zulip's `remove_user_alert_words`: the list without `words` (compared case-insensitively). */
export function withoutAlertWords(current: readonly string[], words: readonly string[]): string[] {
  const gone = new Set(words.map((w) => w.toLowerCase()));
  return current.filter((w) => !gone.has(w.toLowerCase()));
}

// Zulip's `AlertWordNotificationProcessor.allowed_before_punctuation` / `allowed_after_punctuation`.
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER = new Set([' ', '\n', ')', '"', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/**
 * Does `content` (the raw Markdown) contain `word` as Zulip's matcher sees it: lower-cased
 * substring whose neighbours are a string edge or one of Zulip's punctuation sets. Zulip tests the
 * character before the match with `index <= 0 or content[index] in allowed_before`, so a match
 * starting at the second character always passes; kept as is.
 */
export function containsAlertWord(lowerContent: string, word: string): boolean {
  const w = word.toLowerCase();
  if (w === '') return false;
  for (let start = lowerContent.indexOf(w); start !== -1; start = lowerContent.indexOf(w, start + 1)) {
    const before = start - 1;
    const after = start + w.length;
    const okBefore = before <= 0 || BEFORE.has(lowerContent[before]!);
    const okAfter = after >= lowerContent.length || AFTER.has(lowerContent[after]!);
    if (okBefore && okAfter) return true;
  }
  return false;
}

/**
 * Zulip's `user_ids_with_alert_words` restricted to `candidates` (the message's recipients):
 * active users with at least one word occurring in `content`.
 */
export function usersAlertedBy(state: RealmState, content: string, candidates: Iterable<number>): number[] {
  const all = state.alertWords;
  if (all === undefined || all.size === 0) return [];
  const lower = content.toLowerCase();
  const out: number[] = [];
  for (const userId of candidates) {
    const words = all.get(userId);
    if (words === undefined || !state.users.get(userId)?.isActive) continue;
    if (words.some((w) => containsAlertWord(lower, w))) out.push(userId);
  }
  return out;
}

/** `evolve` of `alert_words_changed`. */
export function alertWordsChanged(state: RealmState, r: AlertWordsChanged): void {
  const all = (state.alertWords ??= new Map());
  if (r.words.length === 0) all.delete(r.userId);
  else all.set(r.userId, [...r.words]);
}

/** Snapshot form. */
export type AlertWordsCore = Array<[userId: number, words: string[]]>;

export function alertWordsToCore(state: RealmState): AlertWordsCore {
  return [...(state.alertWords ?? [])];
}

/** Restores `state.alertWords` (`undefined` = a snapshot written before alert words: none). */
export function alertWordsFromCore(state: RealmState, core: AlertWordsCore | undefined): void {
  state.alertWords = new Map((core ?? []).map(([userId, words]) => [userId, [...words]]));
}
