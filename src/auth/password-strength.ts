/**
 * Zulip's password strength rule (`check_password_strength`, zerver/forms.py): at least
 * `password_min_length` (6) and at most `password_max_length` (100) characters, and at least
 * `password_min_guesses` (10000) guesses as estimated by zxcvbn. The estimate uses
 * @zxcvbn-ts (a maintained TypeScript port of Dropbox's zxcvbn, which Zulip's frontend uses) with
 * its common-password dictionaries; the factory is built on first use (the dictionaries take a
 * few milliseconds to load).
 */
import core from '@zxcvbn-ts/core';
import common from '@zxcvbn-ts/language-common';
import { SERVER_LIMITS } from '../domain/server-limits.js';

let factory: InstanceType<typeof core.ZxcvbnFactory> | undefined;

/** zxcvbn's estimated number of guesses for `password`. */
export function passwordGuesses(password: string): number {
  factory ??= new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  return factory.check(password).guesses;
}

/** Whether `password` passes Zulip's strength rule; lengths in Unicode code points. */
export function isPasswordStrongEnough(password: string): boolean {
  const length = [...password].length;
  if (length < SERVER_LIMITS.password_min_length || length > SERVER_LIMITS.password_max_length) return false;
  return passwordGuesses(password) >= SERVER_LIMITS.password_min_guesses;
}
