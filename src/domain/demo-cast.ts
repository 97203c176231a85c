/**
 * Zulip's development cast (the users and channels of Zulip's
 * `zilencer/management/commands/populate_db.py`) as parley's demo organization has them. Plain
 * data so that both the demo creator (`realm/demo-realm.ts`) and the Markdown conformance runner
 * (which renders Zulip's fixtures against the same cast) can use it without importing each
 * other's layer.
 */
import { Role, type RoleCode } from './realm-state.js';

/** Demo accounts: email, full name, role. */
export const DEMO_USERS: ReadonlyArray<readonly [string, string, RoleCode]> = [
  ['desdemona@zulip.com', 'Desdemona', Role.owner],
  ['iago@zulip.com', 'Iago', Role.admin],
  ['shiva@zulip.com', 'Shiva', Role.moderator],
  ['hamlet@zulip.com', 'King Hamlet', Role.member],
  ['othello@zulip.com', 'Othello, the Moor of Venice', Role.member],
  ['cordelia@zulip.com', "Cordelia, Lear's daughter", Role.member],
  ['prospero@zulip.com', 'Prospero from The Tempest', Role.member],
  ['aaron@zulip.com', 'aaron', Role.member],
  ['polonius@zulip.com', 'Polonius', Role.guest],
];

/** The demo's generic bot (owned by hamlet). */
export const DEMO_BOT_EMAIL = 'default-bot@zulip.com';
/** The demo's public channels (the private "core team" is created separately). */
export const DEMO_PUBLIC_STREAMS = ['Verona', 'Denmark', 'Scotland', 'Venice', 'Rome'];
