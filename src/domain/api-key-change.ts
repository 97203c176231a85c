/**
 * API key regeneration (Zulip's
 * `zerver/actions/user_settings.py` `do_regenerate_api_key`): the account's key is replaced; the
 * old key stops authenticating at once (the by-key index forgets it). Web sessions are separate
 * records and stay valid, as in Zulip.
 */
import type { RealmState } from './realm-state.js';

/** A user's (or bot's) API key was replaced. */
export interface ApiKeyRegenerated {
  type: 'api_key_regenerated';
  v: 1;
  userId: number;
  /** 32 characters [A-Za-z0-9]. */
  apiKey: string;
}

/** `evolve` of `api_key_regenerated`: swaps the key in the user and in `usersByApiKey`. */
export function apiKeyRegenerated(state: RealmState, r: ApiKeyRegenerated): void {
  const user = state.users.get(r.userId);
  if (user === undefined) return;
  state.usersByApiKey.delete(user.apiKey);
  user.apiKey = r.apiKey;
  state.usersByApiKey.set(r.apiKey, user.id);
}
