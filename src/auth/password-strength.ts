/**
 * Zulip's password strength rule (`check_password_strength`, zerver/forms.py): at least
 * `password_min_length` (6) and at most `password_max_length` (100) characters, and at least
 * `password_min_guesses` (10000) guesses as estimated by zxcvbn. The estimate uses
 * @zxcvbn-ts (a maintained TypeScript port of Dropbox's zxcvbn, which Zulip's frontend uses) with
 * its common-password dictionaries. The packages and the factory are loaded on first use (a few
 * milliseconds), not at start-up: the dictionaries are ~2.5 MB of heap an idle server never needs
 * (bench/PROFILE.md, idle RSS).
 */
import { createRequire } from 'node:module';
import type ZxcvbnCore from '@zxcvbn-ts/core';
import type ZxcvbnCommon from '@zxcvbn-ts/language-common';
import { SERVER_LIMITS } from '../domain/server-limits.js';

const require = createRequire(import.meta.url);
let factory: InstanceType<typeof ZxcvbnCore.ZxcvbnFactory> | undefined;

function loadFactory(): InstanceType<typeof ZxcvbnCore.ZxcvbnFactory> {
  const core = require('@zxcvbn-ts/core') as typeof ZxcvbnCore;
  const common = require('@zxcvbn-ts/language-common') as typeof ZxcvbnCommon;
  return new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
}

/** zxcvbn's estimated number of guesses for `password`. */
export function passwordGuesses(password: string): number {
  factory ??= loadFactory();
  return factory.check(password).guesses;
}

/** Whether `password` passes Zulip's strength rule; lengths in Unicode code points. */
export function isPasswordStrongEnough(password: string): boolean {
  const length = [...password].length;
  if (length < SERVER_LIMITS.password_min_length || length > SERVER_LIMITS.password_max_length) return false;
  return passwordGuesses(password) >= SERVER_LIMITS.password_min_guesses;
}
