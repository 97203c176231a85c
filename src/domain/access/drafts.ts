/**
 * Draft access (Zulip's zerver/lib/drafts.py `do_edit_draft` / `do_delete_draft`:
 * `Draft.objects.get(id=draft_id, user_profile=user_profile)`): a draft is reachable only by its
 * owner; another user's draft id answers exactly like an unknown one.
 */
import { ZulipError, fail, ok, type Result } from '../../errors.js';
import { findDraft, type Draft } from '../drafts.js';
import type { RealmState, User } from '../realm-state.js';

/** HTTP 404 `Draft does not exist` (Zulip raises `ResourceNotFoundError`). */
export const draftDoesNotExist = (): ZulipError => new ZulipError('BAD_REQUEST', 'Draft does not exist', 404);

/** The user's own draft `draftId`, or `Draft does not exist` (404). */
export function accessDraft(state: RealmState, user: User, draftId: number): Result<Draft> {
  const draft = user.isActive ? findDraft(state, user.id, draftId) : undefined;
  return draft === undefined ? fail(draftDoesNotExist()) : ok(draft);
}
