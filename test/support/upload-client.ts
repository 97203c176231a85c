/**
 * Upload helpers for API tests over real HTTP: `POST /api/v1/user_uploads` with fetch's FormData,
 * file downloads with HTTP Basic (or any headers), and the file store's stored digests.
 * Does not import tap.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Caller, TestServer } from './test-server.js';

/** HTTP Basic `email:api_key` of a caller. */
export const basicAuth = (c: Caller) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');

/** POST /user_uploads with the given file parts ([field, bytes, filename, type?]). */
export async function upload(s: TestServer, c: Caller, parts: Array<[string, Uint8Array<ArrayBuffer> | string, string, string?]>) {
  const form = new FormData();
  for (const [field, bytes, filename, type] of parts) form.append(field, new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], type ? { type } : {}), filename);
  const res = await fetch(`${s.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: basicAuth(c) }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** GET `path` (no `/api/v1` prefix) as `c` (null: no credentials), the body as bytes. */
export async function getFile(s: TestServer, path: string, c: Caller | null, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${path}`, { headers: { ...(c ? { Authorization: basicAuth(c) } : {}), ...headers } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes };
}

/** Digests in the content-addressed store (temp files excluded). */
export function storedFiles(s: Pick<TestServer, 'dataDir'>): string[] {
  const root = join(s.dataDir, 'files', 'sha256');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) => readdirSync(join(root, d)));
}
