/**
 * In-process test server: `startServer` on 127.0.0.1, port 0, a fresh temp data dir, the demo
 * organization with a known password. `as(email)` logs in once (POST /fetch_api_key) and returns
 * a Basic-auth caller. Torn down with the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';

export const DEMO_PASSWORD = 'demo-password-for-tests';

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

export interface Caller {
  email: string;
  apiKey: string;
  userId: number;
  /** Sends form-urlencoded params (body for non-GET, query string for GET). */
  call(method: string, path: string, params?: Record<string, unknown>): Promise<Reply>;
}

export interface TestServer {
  url: string;
  server: RunningServer;
  dataDir: string;
  /** Raw request: params JSON-encoded when not strings. */
  request(method: string, path: string, init?: { params?: Record<string, unknown>; headers?: Record<string, string> }): Promise<Reply>;
  as(email: string): Promise<Caller>;
  close(): Promise<void>;
}

/** Encodes params Zulip-style: strings verbatim, everything else as JSON. */
export function formEncode(params: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return form.toString();
}

/**
 * A request through node:http, which (unlike fetch) lets a test set the Host header, e.g. to
 * select a realm by subdomain.
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function startTestServer(
  t: { teardown(fn: () => unknown): void },
  overrides: Partial<Config> = {},
  options: Parameters<typeof startServer>[1] = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  // Rate limits are off unless a test asks for them: a test's verifyAction rounds can pass 200
  // requests a minute by one user on a fast machine (test/api/rate-limits.test.ts turns them on).
  const server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: DEMO_PASSWORD, rateLimits: false, ...overrides }, options);
  const url = server.url;
  const request: TestServer['request'] = async (method, path, init = {}) => {
    const encoded = formEncode(init.params ?? {});
    const isGet = method === 'GET' || method === 'HEAD';
    const target = `${url}/api/v1${path}${isGet && encoded ? `?${encoded}` : ''}`;
    const res = await fetch(target, {
      method,
      headers: { ...(isGet ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }), ...init.headers },
      ...(isGet ? {} : { body: encoded }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  const callers = new Map<string, Caller>();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  t.teardown(close);
  return {
    url,
    server,
    dataDir,
    request,
    close,
    async as(email) {
      const cached = callers.get(email);
      if (cached) return cached;
      const login = await request('POST', '/fetch_api_key', { params: { username: email, password: DEMO_PASSWORD } });
      if (login.status !== 200) throw new Error(`login ${email}: ${JSON.stringify(login.body)}`);
      const auth = 'Basic ' + Buffer.from(`${email}:${login.body.api_key}`).toString('base64');
      const caller: Caller = {
        email,
        apiKey: login.body.api_key,
        userId: login.body.user_id,
        call: (method, path, params) => request(method, path, { params: params ?? {}, headers: { Authorization: auth } }),
      };
      callers.set(email, caller);
      return caller;
    },
  };
}

/**
 * One API call with HTTP Basic `email:key` against a server at `url` (for tests that restart a
 * server on the same data directory): params form-encoded Zulip-style, in the query string for GET
 * and in the body otherwise. Answers the status and the decoded JSON body.
 */
export async function basicRequest(url: string, email: string, key: string, method: string, path: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const encoded = formEncode(params);
  const isGet = method === 'GET';
  const res = await fetch(`${url}/api/v1${path}${isGet ? `?${encoded}` : ''}`, {
    method,
    headers: { Authorization: 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64'), ...(isGet ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
    ...(isGet ? {} : { body: encoded }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** {@link basicRequest}'s body only. */
export async function basicCall(url: string, email: string, key: string, method: string, path: string, params: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return (await basicRequest(url, email, key, method, path, params)).body;
}

/** `POST /fetch_api_key` for `email` / `password` at `url`: the API key (throws when the login fails). */
export async function loginApiKey(url: string, email: string, password: string): Promise<string> {
  const body = await basicCall(url, '', '', 'POST', '/fetch_api_key', { username: email, password });
  if (typeof body.api_key !== 'string') throw new Error(`fetch_api_key for ${email} failed: ${JSON.stringify(body)}`);
  return body.api_key;
}
