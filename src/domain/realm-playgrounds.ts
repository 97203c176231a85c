/**
 * Code playgrounds (https://zulip.com/api/add-code-playground; Zulip's zerver/models/realms.py
 * `RealmPlayground`, zerver/actions/realm_playgrounds.py `check_add_realm_playground`,
 * `do_remove_realm_playground`): per Pygments language, a named URL template with the single
 * variable `code`, used by clients for "View in playground" on code blocks.
 *
 * State: `RealmState.playgrounds` (absent until the first playground); records
 * `realm_playground_added` / `realm_playground_removed` (v1). Validation here is Zulip's model
 * validation, with its messages.
 */
import type { RealmState } from './realm-state.js';
import { uriTemplateVariables } from './linkifiers.js';

/** One playground. */
export interface RealmPlayground {
  readonly id: number;
  /** ≤ 50 characters (`RealmPlayground.MAX_NAME_LENGTH`). */
  name: string;
  /** ≤ 40 characters of `[ a-zA-Z0-9_+-./#]`. */
  pygmentsLanguage: string;
  /** RFC 6570 template whose only variable is `code`. */
  urlTemplate: string;
}

/** The realm's playgrounds in id order, and the next id. */
export interface PlaygroundState {
  items: RealmPlayground[];
  nextId: number;
}

/** `realm_playground_added` v1. */
export interface RealmPlaygroundAdded {
  type: 'realm_playground_added';
  v: 1;
  playground: RealmPlayground;
}

/** `realm_playground_removed` v1. */
export interface RealmPlaygroundRemoved {
  type: 'realm_playground_removed';
  v: 1;
  id: number;
}

export type PlaygroundRecord = RealmPlaygroundAdded | RealmPlaygroundRemoved;

/** Zulip's `RealmPlayground.MAX_NAME_LENGTH` and `MAX_PYGMENTS_LANGUAGE_LENGTH`, in characters. */
export const MAX_PLAYGROUND_NAME_LENGTH = 50;
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/** The realm's playgrounds (empty when none was ever added). */
export function playgroundsOf(state: RealmState): PlaygroundState {
  return state.playgrounds ?? { items: [], nextId: 1 };
}

/** Wire form (`realm_playgrounds` in `/register` and its event). */
export function playgroundsWire(state: RealmState): Array<{ id: number; name: string; pygments_language: string; url_template: string }> {
  return playgroundsOf(state).items.map((p) => ({ id: p.id, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate }));
}

/**
 * Zulip's `RealmPlayground` `full_clean` for a new playground, in its order: the first error
 * message, or null. `name` and `pygments_language` must be non-blank, within their lengths,
 * the language of valid characters; the template a valid URI template whose only variable is
 * `code`; (name, language) unique in the realm.
 */
export function checkPlayground(state: RealmState, name: string, pygmentsLanguage: string, urlTemplate: string): string | null {
  if (name === '') return 'This field cannot be blank.';
  if ([...name].length > MAX_PLAYGROUND_NAME_LENGTH) return `Ensure this value has at most ${MAX_PLAYGROUND_NAME_LENGTH} characters (it has ${[...name].length}).`;
  if (pygmentsLanguage === '') return 'This field cannot be blank.';
  if ([...pygmentsLanguage].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    return `Ensure this value has at most ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters (it has ${[...pygmentsLanguage].length}).`;
  }
  if (!/^[ a-zA-Z0-9_+\-./#]*$/.test(pygmentsLanguage)) return 'Invalid characters in pygments language';
  if (urlTemplate === '') return 'This field cannot be blank.';
  const variables = uriTemplateVariables(urlTemplate);
  if (variables === null) return 'Invalid URL template.';
  if (!variables.includes('code')) return 'Missing the required variable "code" in the URL template';
  if (variables.some((v) => v !== 'code')) return '"code" should be the only variable present in the URL template';
  if (playgroundsOf(state).items.some((p) => p.name === name && p.pygmentsLanguage === pygmentsLanguage)) {
    return 'Realm playground with this Realm, Pygments language and Name already exists.';
  }
  return null;
}

/** `evolve` of the playground records. */
export function evolvePlayground(state: RealmState, r: PlaygroundRecord): void {
  const current = playgroundsOf(state);
  if (r.type === 'realm_playground_added') {
    state.playgrounds = { items: [...current.items, { ...r.playground }], nextId: Math.max(current.nextId, r.playground.id + 1) };
  } else {
    state.playgrounds = { items: current.items.filter((p) => p.id !== r.id), nextId: current.nextId };
  }
}

/** Snapshot form: the state itself (plain data); undefined when there are none. */
export function playgroundsToCore(state: RealmState): PlaygroundState | undefined {
  return state.playgrounds;
}

/** Restores `playgroundsToCore` output. */
export function playgroundsFromCore(state: RealmState, core: PlaygroundState | undefined): void {
  if (core !== undefined) state.playgrounds = core;
}
