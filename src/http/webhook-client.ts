/**
 * The HTTP client of outgoing webhooks (Zulip's zerver/lib/outgoing_webhook.py
 * `OutgoingWebhookServiceInterface.session`, which goes through Smokescreen so private networks
 * are refused): one POST, with the camo proxy's address rule (http/external-content.ts
 * `publicOnlyLookup`: public addresses only, checked at connection time; loopback only with the
 * test hook), a whole-request time limit and a bounded response body. No redirects are followed.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, publicOnlyLookup } from './external-content.js';
import type { WebhookPostResult } from '../api/outgoing-webhooks.js';

/** Options of {@link postWebhook}. */
export interface WebhookPostOptions {
  /** Request body and its content type (`application/json` or form-encoded). */
  body: string;
  contentType: string;
  /** Whole-request limit, milliseconds. */
  timeoutMs: number;
  /** Largest response body read, bytes; the rest is dropped (the answer is still used). */
  maxBytes: number;
  /** Test hook: allow 127.0.0.0/8 and ::1 (never in production). */
  allowLoopback: boolean;
}

/** POSTs `options.body` to `url` within the limits; never rejects. */
export function postWebhook(url: string, options: WebhookPostOptions): Promise<WebhookPostResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ kind: 'connection_error', message: 'Invalid URL' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve({ kind: 'connection_error', message: 'Invalid URL scheme' });
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !isPublicAddress(literal, options.allowLoopback)) return Promise.resolve({ kind: 'refused' });
  const signal = AbortSignal.timeout(options.timeoutMs);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(target, {
      method: 'POST',
      lookup: publicOnlyLookup(options.allowLoopback),
      signal,
      headers: { 'Content-Type': options.contentType, 'Content-Length': Buffer.byteLength(options.body), 'User-Agent': 'ZulipOutgoingWebhook/parley' },
    }, (res) => {
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (chunk: Buffer) => {
        if (total >= options.maxBytes) return;
        chunks.push(chunk.subarray(0, options.maxBytes - total));
        total += Math.min(chunk.byteLength, options.maxBytes - total);
      });
      res.on('end', () => resolve({ kind: 'response', status: res.statusCode ?? 0, body: Buffer.concat(chunks, total) }));
      res.on('error', () => resolve(signal.aborted ? { kind: 'timeout' } : { kind: 'connection_error', message: 'response aborted' }));
    });
    req.on('error', (error: Error) => {
      if (signal.aborted) resolve({ kind: 'timeout' });
      else if (error.message.startsWith('refused address')) resolve({ kind: 'refused' });
      else resolve({ kind: 'connection_error', message: error.message });
    });
    req.end(options.body);
  });
}
