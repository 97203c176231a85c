/**
 * Linkifiers (https://zulip.com/api/get-linkifiers): the realm's ordered list of (pattern,
 * url_template) pairs, their validation with Zulip's exact errors, and
 * {@link applyLinkifiers}, the one function the Markdown renderer (and `topic_links`) uses.
 *
 * State: `state.linkifiers` = `{ items, nextId }`, items in display order. One record,
 * `linkifiers_changed` v1, carries the whole list after a change (lists are tiny), so `evolve`
 * is a plain assignment and ordering, creation, edits and deletions share one code path.
 */
import { parseTemplate } from 'url-template';
import { RE2JS } from 're2js';
import { ZulipError } from '../errors.js';
import { checkRe2 } from './python-regex.js';
import type { RealmState } from './realm-state.js';
import { LRUCache } from 'lru-cache';

/** One linkifier (domain form). */
export interface Linkifier {
  id: number;
  pattern: string;
  urlTemplate: string;
}

/** The realm's linkifiers in order, and the next id (ids are never reused). */
export interface LinkifierState {
  items: Linkifier[];
  nextId: number;
}

/** `linkifiers_changed` v1: the complete ordered list after an add / update / remove / reorder. */
export interface LinkifiersChanged {
  type: 'linkifiers_changed';
  v: 1;
  linkifiers: Linkifier[];
  nextId: number;
}

export const emptyLinkifiers = (): LinkifierState => ({ items: [], nextId: 1 });

/** The realm's linkifier state (tolerates states built before linkifiers existed). */
export function linkifiersOf(state: RealmState): LinkifierState {
  return state.linkifiers ?? emptyLinkifiers();
}

/** `evolve` for `linkifiers_changed`. */
export function linkifiersChanged(state: RealmState, r: LinkifiersChanged): void {
  state.linkifiers = { items: r.linkifiers.map((l) => ({ ...l })), nextId: r.nextId };
}

/** Wire form `{pattern, url_template, id}` (GET /realm/linkifiers, register, events). */
export function linkifiersWire(state: RealmState): Array<{ pattern: string; url_template: string; id: number }> {
  return linkifiersOf(state).items.map((l) => ({ pattern: l.pattern, url_template: l.urlTemplate, id: l.id }));
}

/** Snapshot form (optional field of the core; absent in old snapshots = no linkifiers). */
export type LinkifiersCore = LinkifierState;

export function linkifiersToCore(state: RealmState): LinkifiersCore | undefined {
  const l = state.linkifiers;
  return l === undefined || (l.items.length === 0 && l.nextId === 1) ? undefined : l;
}

export function linkifiersFromCore(state: RealmState, core: LinkifiersCore | undefined): void {
  state.linkifiers = core === undefined ? emptyLinkifiers() : { items: core.items.map((l) => ({ ...l })), nextId: core.nextId };
}

// ------------------------------------------------------------------------------------------
// URI templates (RFC 6570)

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
const VARCHAR = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+$/;
// Literals: any character except CTL, SP, '"', "'", '%' (unless pct-encoded), '<', '>', '\', '^', '`', '{', '|', '}'.
const BAD_LITERAL = /[\x00-\x20"'<>\\^`{|}\x7f]/;

/**
 * Parses an RFC 6570 (level 4) URI template; returns its variable names in order of appearance,
 * or null when the template is invalid (Zulip: `"Invalid URL template."`).
 */
export function uriTemplateVariables(template: string): string[] | null {
  const names: string[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const literal = template.slice(i, open < 0 ? template.length : open);
    if (literal.includes('}') || BAD_LITERAL.test(literal)) return null;
    if (/%(?![0-9A-Fa-f]{2})/.test(literal)) return null;
    if (open < 0) break;
    const close = template.indexOf('}', open + 1);
    if (close < 0) return null;
    let expr = template.slice(open + 1, close);
    if (expr.includes('{')) return null;
    if (expr.length > 0 && RESERVED_OPERATORS.has(expr[0]!)) return null;
    if (expr.length > 0 && OPERATORS.has(expr[0]!)) expr = expr.slice(1);
    if (expr === '') return null;
    for (const spec of expr.split(',')) {
      const m = /^(.*?)(\*|:([1-9][0-9]{0,3}))?$/.exec(spec)!;
      const name = m[1]!;
      if (name === '' || name.startsWith('.') || name.endsWith('.')) return null;
      if (!name.split('.').every((part) => VARCHAR.test(part))) return null;
      names.push(name);
    }
    i = close + 1;
  }
  return names;
}

// ------------------------------------------------------------------------------------------
// Validation (Django `full_clean` of Zulip's RealmFilter)

/** Python `repr` of a str, as Zulip quotes group names. */
export function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

const smallest = (names: Iterable<string>): string | undefined => {
  let min: string | undefined;
  for (const n of names) if (min === undefined || n < min) min = n;
  return min;
};

/**
 * Validates a (stripped) pattern and URL template as Zulip's `RealmFilter.full_clean`: field
 * errors first (`pattern`, `url_template`: blank, bad regex, invalid template), then the
 * cross-field group checks and the uniqueness check under `__all__`. Returns null when valid,
 * else Zulip's `ValidationFailureError`: 400 `BAD_REQUEST`, `msg` = the first message, and the
 * `errors` dict (field → messages). `exceptId`: the linkifier being edited (uniqueness).
 */
export function validateLinkifier(state: RealmState, pattern: string, urlTemplate: string, exceptId?: number): ZulipError | null {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  const compiled = checkRe2(pattern);
  if (pattern === '') add('pattern', 'This field cannot be blank.');
  else if (!compiled.ok) add('pattern', `Bad regular expression: ${compiled.message}`);
  const variables = uriTemplateVariables(urlTemplate);
  if (urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (variables === null) add('url_template', 'Invalid URL template.');
  // `clean()`: only when the regex compiled (Zulip catches re2.error and skips the check).
  if (compiled.ok && variables !== null) {
    const groups = new Set(compiled.value.groupNames);
    const vars = new Set(variables);
    const missingInPattern = smallest([...vars].filter((v) => !groups.has(v)));
    const missingInUrl = smallest([...groups].filter((g) => !vars.has(g)));
    if (missingInPattern !== undefined) {
      add('__all__', `Group ${pythonRepr(missingInPattern)} in URL template is not present in linkifier pattern.`);
    } else if (missingInUrl !== undefined) {
      add('__all__', `Group ${pythonRepr(missingInUrl)} in linkifier pattern is not present in URL template.`);
    }
  }
  // `validate_unique`: skipped for a field that already has errors.
  if (errors.pattern === undefined && linkifiersOf(state).items.some((l) => l.pattern === pattern && l.id !== exceptId)) {
    add('__all__', 'Realm filter with this Realm and Pattern already exists.');
  }
  const fields = Object.keys(errors);
  if (fields.length === 0) return null;
  const first = errors[fields[0]!]![0]!;
  return new ZulipError('BAD_REQUEST', first, 400, { errors });
}

// ------------------------------------------------------------------------------------------
// Applying linkifiers (for the Markdown renderer and topic_links)

/** One linkified span of the input: `text.slice(start, end) === text`, linked to `url`. */
export interface LinkifierMatch {
  /** The matched text (the pattern's whole match). */
  text: string;
  /** The expanded URL template. */
  url: string;
  /** UTF-16 offsets into the input, end exclusive. */
  start: number;
  end: number;
  /** The linkifier that produced it. */
  linkifierId: number;
}

/** Pattern → compiled regex (`re: null` when RE2 rejects it); least recently used evicted. */
const compiledCache = new LRUCache<string, { readonly re: RE2JS | null }>({ max: 1000 });

/**
 * Zulip's `prepare_linkifier_pattern`: a match must follow start-of-text, whitespace, U+0085, a
 * separator (`\pZ`) or one of `'"(,:<`, and must not be followed by a letter or digit.
 */
function prepared(pattern: string): RE2JS | null {
  let entry = compiledCache.get(pattern);
  if (entry === undefined) {
    let re: RE2JS | null;
    try {
      re = RE2JS.compile(`(?:^|\\s|\\x{85}|\\pZ|['"(,:<])(?P<linkifier_actual_match>${pattern})(?:$|[^\\pL\\pN])`);
    } catch {
      re = null;
    }
    entry = { re };
    compiledCache.set(pattern, entry);
  }
  return entry.re;
}

/**
 * Finds the linkified spans of `text` (a plain-text run of a message or a topic name), as Zulip's
 * linkifier inline patterns do: linkifiers are applied in list order; a span claimed by an earlier
 * linkifier is not matched again by a later one; each match must stand at a word boundary (see
 * {@link prepared}); the URL is the RFC 6570 expansion of the template with the named groups.
 * Matching uses RE2 (linear time), so no pattern can stall the caller. Result sorted by `start`,
 * non-overlapping.
 */
export function applyLinkifiers(
  text: string,
  linkifiers: ReadonlyArray<{ id: number; pattern: string; urlTemplate?: string; url_template?: string }>,
): LinkifierMatch[] {
  // Matches of the linkifiers before the current one, sorted by start and disjoint; a binary
  // search finds the one that could overlap a candidate (a linear scan was quadratic).
  let found: LinkifierMatch[] = [];
  const overlaps = (s: number, e: number): boolean => {
    let lo = 0;
    let hi = found.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (found[mid]!.end > s) hi = mid;
      else lo = mid + 1;
    }
    return lo < found.length && found[lo]!.start < e;
  };
  for (const l of linkifiers) {
    const re = prepared(l.pattern);
    const template = l.urlTemplate ?? l.url_template;
    if (re === null || template === undefined) continue;
    const groupNames = Object.keys(re.namedGroups()).filter((n) => n !== 'linkifier_actual_match');
    const expander = parseTemplate(template);
    const m = re.matcher(text);
    const mine: LinkifierMatch[] = [];
    let pos = 0;
    while (pos <= text.length && m.find(pos)) {
      const start = m.start('linkifier_actual_match');
      const end = m.end('linkifier_actual_match');
      // Continue at the end of the match proper, so the next match may use its trailing separator.
      pos = end > start ? end : end + 1;
      if (start < 0 || overlaps(start, end)) continue;
      const values: Record<string, string> = {};
      for (const name of groupNames) {
        const v = m.group(name);
        if (v !== null && v !== undefined) values[name] = v;
      }
      mine.push({ text: text.slice(start, end), url: expander.expand(values), start, end, linkifierId: l.id });
    }
    if (mine.length > 0) found = found.length === 0 ? mine : [...found, ...mine].sort((a, b) => a.start - b.start);
  }
  return found;
}
