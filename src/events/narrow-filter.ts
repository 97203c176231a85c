/**
 * The `narrow` of `POST /register` (https://zulip.com/api/register-queue): a list of `[operator, operand]`
 * pairs over `stream`, `topic`, `sender` and `is`, compiled to a predicate on the message object
 * of a `message` event. Only messages matching every pair reach the queue.
 */
import { Errors, type ZulipError } from '../errors.js';
import type { MessageObject } from './schemas.js';

/** A compiled narrow, or null for "everything". */
export type MessageFilter = ((message: MessageObject) => boolean) | null;

const SUPPORTED = new Set(['stream', 'channel', 'topic', 'sender', 'is']);

/** Compiles a decoded narrow (already checked to be a list); returns the filter or the Zulip error. */
export function compileEventNarrow(narrow: readonly unknown[]): MessageFilter | ZulipError {
  const tests: Array<(m: MessageObject) => boolean> = [];
  for (let i = 0; i < narrow.length; i++) {
    const term = narrow[i];
    if (!Array.isArray(term) || term.length !== 2) return Errors.badRequest(`narrow[${i}] should have exactly 2 items`);
    const [operator, operand] = term as [unknown, unknown];
    if (typeof operator !== 'string' || typeof operand !== 'string') return Errors.badRequest(`narrow[${i}] is not a string`);
    if (!SUPPORTED.has(operator)) return Errors.badRequest(`Operator ${operator} not supported.`);
    const lower = operand.toLowerCase();
    switch (operator) {
      case 'stream':
      case 'channel':
        tests.push((m) => m.type === 'stream' && typeof m.display_recipient === 'string' && m.display_recipient.toLowerCase() === lower);
        break;
      case 'topic':
        tests.push((m) => m.type === 'stream' && m.subject.toLowerCase() === lower);
        break;
      case 'sender':
        tests.push((m) => m.sender_email.toLowerCase() === lower);
        break;
      case 'is':
        if (lower === 'private' || lower === 'dm') tests.push((m) => m.type === 'private');
        else tests.push(() => false);
        break;
    }
  }
  if (tests.length === 0) return null;
  return (m) => tests.every((test) => test(m));
}
