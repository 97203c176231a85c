/**
 * The route index as a trie (our `zproject/urls.py` dispatch): static segments, `{name}` integer
 * segments, `{name:string}` single decoded segments and `{name:path}` rest-of-path placeholders,
 * each node holding the methods it serves (for 405 and `Allow`). Built once from
 * `api/endpoints.ts` by `buildTrie`; `match` finds a request path's node and its placeholder values.
 */
import type { AnyEndpoint, PathParamKind, Route } from './define-endpoint.js';

/** The `/api/v1/` prefix: HTTP Basic (email:API key) clients. */
export const API_PREFIX = '/api/v1/';
/** The `/json/` prefix: the same endpoints for the browser app, by session cookie + CSRF token. */
export const JSON_PREFIX = '/json/';

export interface RouteLeaf {
  readonly endpoint: AnyEndpoint;
  /** Full path template (`/api/v1/messages/{message_id}`), the `route` of logs and metrics. */
  readonly template: string;
  /** The same under `/json/` (`/json/messages/{message_id}`). */
  readonly jsonTemplate: string;
  /** The `{...}` placeholders, in path order. */
  readonly placeholders: readonly { readonly name: string; readonly kind: PathParamKind }[];
}

export interface RouteNode {
  readonly statics: Map<string, RouteNode>;
  /** `{name}`: a decimal integer segment. */
  intParam: RouteNode | null;
  /** `{name:string}`: any non-empty segment, URL-decoded. */
  stringParam: RouteNode | null;
  /** `{name:path}`: the rest of the path (one or more segments), always a leaf. */
  pathParam: RouteNode | null;
  readonly routes: Map<string, RouteLeaf>;
  /** Sorted supported methods (no HEAD/OPTIONS), for 405 and `Allow`. */
  allowed: readonly string[];
  allowHeader: string;
}

const newNode = (): RouteNode => ({
  statics: new Map(),
  intParam: null,
  stringParam: null,
  pathParam: null,
  routes: new Map(),
  allowed: [],
  allowHeader: '',
});

function isDecimal(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Percent-decodes one path segment; a malformed escape leaves it as it is (then it just won't match). */
export function decodeSegment(seg: string): string {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)(:string|:path)?\}$/;

/**
 * Throws unless `placeholders` are exactly the endpoint's declared `pathParams` (same names and
 * kinds): the compiler checks this in `route()`, this catches tables built without it.
 */
function checkPathParams(route: Route, placeholders: readonly { name: string; kind: PathParamKind }[]): void {
  const declared = route.endpoint.pathParams ?? {};
  const found: Record<string, PathParamKind> = Object.fromEntries(placeholders.map((p) => [p.name, p.kind]));
  const same =
    Object.keys(declared).length === placeholders.length && Object.entries(declared).every(([name, kind]) => found[name] === kind);
  if (!same) {
    throw new Error(
      `path parameters of ${route.method} ${route.path} do not match the endpoint's pathParams ${JSON.stringify(declared)}`,
    );
  }
}

/**
 * Builds the route trie from templates such as `/messages/{message_id}` (integer) and
 * `/users/{email:string}`. Throws at startup on a malformed template, a duplicate route, or
 * placeholders that differ from the endpoint's `pathParams`.
 */
export function buildTrie(routes: readonly Route[]): RouteNode {
  const root = newNode();
  for (const route of routes) {
    const { endpoint, method } = route;
    const template = route.path.replace(/^\/+/, '');
    const placeholders: { name: string; kind: PathParamKind }[] = [];
    let node = root;
    const segments = template.split('/');
    for (const [index, seg] of segments.entries()) {
      const m = PLACEHOLDER.exec(seg);
      if (m) {
        const kind: PathParamKind = m[2] === undefined ? 'int' : m[2] === ':path' ? 'path' : 'string';
        if (kind === 'path' && index !== segments.length - 1) throw new Error(`bad path template (a path placeholder must come last): ${route.path}`);
        placeholders.push({ name: m[1]!, kind });
        node =
          kind === 'int' ? (node.intParam ??= newNode()) : kind === 'path' ? (node.pathParam ??= newNode()) : (node.stringParam ??= newNode());
      } else {
        if (seg.includes('{') || seg.includes('}')) throw new Error(`bad path template: ${route.path}`);
        let next = node.statics.get(seg);
        if (next === undefined) node.statics.set(seg, (next = newNode()));
        node = next;
      }
    }
    checkPathParams(route, placeholders);
    if (node.routes.has(method)) throw new Error(`duplicate route: ${method} ${route.path}`);
    node.routes.set(method, { endpoint, template: API_PREFIX + template, jsonTemplate: JSON_PREFIX + template, placeholders });
    node.allowed = [...node.routes.keys()].sort();
    node.allowHeader = node.allowed.join(', ');
  }
  return root;
}

/**
 * Finds the node for `segs[i..]` (already percent-decoded), trying at each position a static
 * segment, then an integer placeholder, then a string placeholder, then a rest-of-path
 * placeholder (the first full match wins, as
 * in Django's ordered `urls.py`), and pushes the placeholder values it took onto `values`.
 */
export function match(node: RouteNode, segs: readonly string[], i: number, values: (number | string)[]): RouteNode | null {
  if (i === segs.length) return node.routes.size > 0 ? node : null;
  const seg = segs[i]!;
  const next = node.statics.get(seg);
  if (next !== undefined) {
    const found = match(next, segs, i + 1, values);
    if (found !== null) return found;
  }
  if (node.intParam !== null && isDecimal(seg)) {
    values.push(Number(seg));
    const found = match(node.intParam, segs, i + 1, values);
    if (found !== null) return found;
    values.pop();
  }
  if (node.stringParam !== null && seg.length > 0) {
    values.push(seg);
    const found = match(node.stringParam, segs, i + 1, values);
    if (found !== null) return found;
    values.pop();
  }
  // `{name:path}` (Django's `<path:name>`, `.+`): takes every remaining segment.
  if (node.pathParam !== null && node.pathParam.routes.size > 0) {
    const rest = segs.slice(i).join('/');
    if (rest.length > 0) {
      values.push(rest);
      return node.pathParam;
    }
  }
  return null;
}
