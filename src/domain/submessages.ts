/**
 * Submessages (https://zulip.com/api/send-submessage; Zulip's zerver/models/submessages.py
 * `SubMessage`, zerver/actions/submessage.py `do_add_submessage`): small JSON documents attached
 * to a message, in order, that widgets (`/poll`, `/todo`: `widgets.ts`) are built from. The first
 * one of a widget message is its `widget` submessage, created with the message by its sender;
 * the others are the readers' votes, options, tasks... (`msg_type` chosen by the client).
 *
 * State: `RealmState.submessages` = `{byMessage: message id → submessages in id order, nextId}`
 * (optional: absent until the first one). Record: `submessage_added` v1.
 */
import type { RealmState } from './realm-state.js';

/** One submessage (Zulip's `SubMessage` row). `content` is the JSON text as sent. */
export interface Submessage {
  id: number;
  messageId: number;
  senderId: number;
  msgType: string;
  content: string;
}

export interface SubmessageState {
  byMessage: Map<number, Submessage[]>;
  nextId: number;
}

/** `submessage_added` v1. */
export interface SubmessageAdded {
  type: 'submessage_added';
  v: 1;
  submessage: Submessage;
}

/** Zulip's wire submessage (`SubMessage.get_raw_db_rows`), as in message objects. */
export interface SubmessageWire {
  msg_type: string;
  content: string;
  message_id: number;
  sender_id: number;
  id: number;
}

export function submessageWire(s: Submessage): SubmessageWire {
  return { msg_type: s.msgType, content: s.content, message_id: s.messageId, sender_id: s.senderId, id: s.id };
}

/** The message's submessages (in id order). */
export function submessagesOf(state: RealmState, messageId: number): readonly Submessage[] {
  return state.submessages?.byMessage.get(messageId) ?? [];
}

/** The `submessages` of a message object. */
export function submessagesWire(state: RealmState, messageId: number): SubmessageWire[] {
  return submessagesOf(state, messageId).map(submessageWire);
}

/** The id the next submessage gets. */
export function nextSubmessageId(state: RealmState): number {
  return state.submessages?.nextId ?? 1;
}

/** `evolve` for `submessage_added`. */
export function submessageAdded(state: RealmState, r: SubmessageAdded): void {
  const all = (state.submessages ??= { byMessage: new Map(), nextId: 1 });
  const list = all.byMessage.get(r.submessage.messageId) ?? [];
  list.push({ ...r.submessage });
  all.byMessage.set(r.submessage.messageId, list);
  if (r.submessage.id >= all.nextId) all.nextId = r.submessage.id + 1;
}

/** Deleted messages take their submessages with them (Zulip: `on_delete=CASCADE`). */
export function dropSubmessages(state: RealmState, messageIds: readonly number[]): void {
  const byMessage = state.submessages?.byMessage;
  if (byMessage === undefined || byMessage.size === 0) return;
  for (const id of messageIds) byMessage.delete(id);
}

/** Snapshot form (absent in snapshots written before submessages: none). */
export interface SubmessagesCore {
  nextId: number;
  submessages: Submessage[];
}

export function submessagesToCore(state: RealmState): SubmessagesCore | undefined {
  const all = state.submessages;
  return all === undefined ? undefined : { nextId: all.nextId, submessages: [...all.byMessage.values()].flat() };
}

export function submessagesFromCore(state: RealmState, core: SubmessagesCore | null | undefined): void {
  if (core === undefined || core === null) {
    delete state.submessages;
    return;
  }
  const byMessage = new Map<number, Submessage[]>();
  for (const s of core.submessages) {
    const list = byMessage.get(s.messageId) ?? [];
    list.push({ ...s });
    byMessage.set(s.messageId, list);
  }
  state.submessages = { byMessage, nextId: core.nextId };
}
