/**
 * Recipients: the target of a message, either a channel or a direct-message conversation.
 * Since feature level 327 both directions of a conversation share one recipient id, so a
 * conversation is identified by its sorted member set (sender included; a DM to oneself is {self}).
 */
import type { RealmState } from './realm-state.js';

/** Map key of a direct conversation: sorted, de-duplicated ids joined by ','. */
export function directKey(sortedUserIds: readonly number[]): string {
  return sortedUserIds.join(',');
}

/** Sorted, de-duplicated member ids of a direct conversation between `senderId` and `others`. */
export function directMembers(senderId: number, others: readonly number[]): number[] {
  return [...new Set([senderId, ...others])].sort((a, b) => a - b);
}

/** Existing recipient id of the conversation, or undefined. */
export function findDirectRecipient(state: RealmState, sortedUserIds: readonly number[]): number | undefined {
  return state.directRecipients.get(directKey(sortedUserIds));
}
