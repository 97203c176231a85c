/**
 * Multipart uploads against a real test server (what python-zulip-api's `upload_file` and
 * Zulip's web app send): `FormData` over `fetch`, authenticated as a caller. And generated test
 * images (sharp), so tests need no binary fixtures.
 */
import sharp from 'sharp';
import type { Caller, Reply, TestServer } from './test-server.js';

/** One file part: form field name, file name, declared Content-Type, bytes. */
export interface FilePart {
  field?: string;
  filename: string;
  type: string;
  data: Uint8Array;
}

/** `method path` under /api/v1 as `caller`, with `files` (and optional text fields) as multipart/form-data. */
export async function uploadAs(
  s: TestServer,
  caller: Caller,
  method: string,
  path: string,
  files: readonly FilePart[],
  fields: Record<string, string> = {},
): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  files.forEach((f, i) => form.append(f.field ?? `file-${i}`, new Blob([new Uint8Array(f.data)], { type: f.type }), f.filename));
  const auth = 'Basic ' + Buffer.from(`${caller.email}:${caller.apiKey}`).toString('base64');
  const res = await fetch(`${s.url}/api/v1${path}`, { method, headers: { Authorization: auth }, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A still `width`×`height` image of one colour in `format` (png, jpeg, webp, gif). */
export function solidImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png', colour = '#3366ff'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: colour } }).toFormat(format).toBuffer();
}

/** A two-frame animated GIF (`width`×`height` per frame, two different colours). */
export async function animatedGif(width: number, height: number): Promise<Buffer> {
  const a = await solidImage(width, height, 'png', '#ff0000');
  const b = await solidImage(width, height, 'png', '#00ff00');
  return sharp([a, b], { join: { animated: true } }).gif().toBuffer();
}

/** GET a non-API path (e.g. `/user_avatars/…`) and return status, headers and the raw bytes. */
export async function getBytes(s: TestServer, path: string, method = 'GET'): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${s.url}${path}`, { method });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
