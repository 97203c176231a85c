/**
 * What the API layer sees of a realm: its read-only state for synchronous queries (src/README.md:
 * request path)
 * and `execute` to send a command through the realm actor's mailbox (src/README.md, the request path).
 */
import type { Result } from '../errors.js';
import type { RealmState } from '../domain/realm-state.js';
import type { FileStore } from '../storage/file-store.js';
import type { MessageBody } from '../domain/records.js';
import type { Command, CommandReply } from './commands.js';

export interface RealmHandle {
  /** Server-local realm id (also the LMDB key prefix). */
  readonly id: number;
  /** '' for the root realm. */
  readonly subdomain: string;
  /** Host name of the realm (`<subdomain>.<external host>`, or the external host for the root realm). */
  readonly host: string;
  /** The realm's URL (`RealmState.url`, from `--external-url`), no trailing slash. */
  readonly url: string;
  /** Live state. Read it synchronously; never mutate it outside `domain/evolve.ts`. */
  readonly state: RealmState;
  /**
   * The server's content-addressed file store (uploads, avatars, emoji; `storage/file-store.ts`).
   * Files are put there, durably, before the record naming them is appended.
   */
  readonly files: FileStore;
  /**
   * Runs one command in the realm actor. Resolves once its records are durable (committed and
   * flushed to disk), with the handler's reply or its error value. Rejects only on a storage
   * failure or shutdown (the API layer answers 500/503).
   */
  /**
   * Number of commands the actor has processed. Read synchronously together with `state`, it says
   * which commands' effects the state includes: their events carry sequence numbers ≤ this.
   */
  readonly commandSeq: number;
  /**
   * The durable-message watermark: every message with an id at or below it has its record
   * durable. Reads (GET /messages, GET /messages/{id}, matches_narrow) show only those, so a
   * crash can never take back a message someone has seen. Message ids grow with the command
   * order and commands become durable in that order, so one number is enough.
   */
  readonly durableMessageId: number;
  /**
   * While an append that changes more than new messages (an edit, move, deletion, flag, reaction,
   * setting...) is not yet durable: a promise of its outcome (true once durable, false if the
   * write failed and the realm took it back). Appends become durable in order, so when it is
   * true every change in the state read before it was taken is durable, except new messages above
   * `durableMessageId`. Null when nothing of the kind is pending. Used by api/durable-read.ts.
   */
  readBarrier(): Promise<boolean> | null;
  /** Resolves once every command processed so far is durable (never rejects). */
  whenDurable(): Promise<void>;
  /** A message's raw Markdown and rendered HTML, or undefined when no such message exists. */
  messageBody(messageId: number): MessageBody | undefined;
  execute<C extends Command>(command: C): Promise<Result<CommandReply<C>>>;
}
