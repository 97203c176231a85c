/**
 * A message body that failed its checksum on read. Reads never fail as a whole for
 * one damaged body: message lists show this marker in its place (as Zulip shows a note in place of
 * content it could not render, zerver/lib/markdown `markdown_convert`'s failure text), while
 * endpoints about that one message (GET /messages/{id}, its history, editing it) answer
 * `Errors.messageDamaged`. Each damaged message is logged once.
 */
import type { MessageBody } from '../domain/records.js';

const NOTE = "[parley note: this message's stored content is damaged and cannot be shown]";

/** The shared marker body; compare with `isDamagedBody`, never mutate. */
export const DAMAGED_BODY: MessageBody = Object.freeze({ content: NOTE, rendered: `<p>${NOTE}</p>` });

/** Whether `body` is the damaged-body marker. */
export function isDamagedBody(body: MessageBody | undefined): boolean {
  return body === DAMAGED_BODY;
}

/** Most damaged message ids remembered per process for log de-duplication. */
const MAX_LOGGED = 10_000;
const logged = new Set<string>();

/** Logs the damage of `realmId`'s message `messageId` once. */
export function reportDamagedBody(realmId: number, messageId: number, error: unknown): void {
  const key = `${realmId}/${messageId}`;
  if (logged.has(key)) return;
  if (logged.size < MAX_LOGGED) logged.add(key);
  console.error(`parley: realm ${realmId}: ${(error as Error).message} — message ${messageId} is shown as damaged; run \`parley verify\` and restore from a backup`);
}
