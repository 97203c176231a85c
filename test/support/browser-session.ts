/**
 * A browser's view of parley's web sessions for tests: a cookie jar over Node's fetch (no redirect
 * following, so each 302 and its `Set-Cookie` are visible), the login form round trip, and `/json`
 * calls carrying the `X-CSRFToken` header as the app does. Does not import tap.
 */

/** One answer, body read as text (and parsed as JSON when it is JSON). */
export interface BrowserReply {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or null when the answer is not JSON. */
  json: Record<string, any> | null;
}

/** Cookies by name, updated from every `Set-Cookie` (Max-Age=0 deletes). */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  /** The `Cookie` header this browser sends ('' when none). */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** The `csrftoken` cookie ('' when none). */
  csrf(): string {
    return this.cookies.get('csrftoken') ?? '';
  }

  /** A request with this browser's cookies; form fields urlencoded; no redirect following. */
  async fetch(method: string, path: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<BrowserReply> {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader();
    if (cookie !== '') headers.Cookie = cookie;
    if (init.form !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(init.form !== undefined && { body: new URLSearchParams(init.form).toString() }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let json: Record<string, any> | null = null;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json };
  }

  /** `/json/<path>` as the app calls it: params form-encoded (JSON for non-strings), X-CSRFToken set. */
  json(method: string, path: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<BrowserReply> {
    const form: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined) form[k] = typeof v === 'string' ? v : JSON.stringify(v);
    const csrf = { 'X-CSRFToken': this.csrf(), ...headers };
    if (method === 'GET') {
      const query = new URLSearchParams(form).toString();
      return this.fetch('GET', `/json/${path}${query ? `?${query}` : ''}`, { headers: csrf });
    }
    return this.fetch(method, `/json/${path}`, { form, headers: csrf });
  }

  /** Opens the login page (getting the CSRF cookie) and posts the form; resolves with the POST's answer. */
  async logIn(email: string, password: string, next?: string): Promise<BrowserReply> {
    const page = await this.fetch('GET', '/login/');
    const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(page.text)?.[1] ?? '';
    return this.fetch('POST', '/accounts/login/', { form: { csrfmiddlewaretoken: token, username: email, password, ...(next !== undefined && { next }) } });
  }
}
