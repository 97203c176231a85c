/**
 * Camo URLs (Zulip's zerver/lib/camo.py `get_camo_url`): external media in rendered messages is
 * loaded through the server's own proxy, `{uri}{hmac-sha1 hex of the URL}/{hex of the URL}`, signed
 * with a server secret so the proxy only ever fetches URLs the server itself produced
 * (`http/external-content.ts` verifies and serves them).
 */
import { createHmac } from 'node:crypto';

/** Zulip's default `CAMO_URI`: the path parley's own proxy serves. */
export const EXTERNAL_CONTENT_PREFIX = '/external_content/';

/** Where the proxy lives and its HMAC key (Zulip's `CAMO_URI`, `CAMO_KEY`). */
export interface CamoConfig {
  /** Prefix, e.g. `/external_content/`. */
  uri: string;
  key: string;
}

/** Zulip's `get_camo_url`. */
export function camoUrl(url: string, camo: CamoConfig): string {
  const bytes = Buffer.from(url, 'utf8');
  const digest = createHmac('sha1', camo.key).update(bytes).digest('hex');
  return `${camo.uri}${digest}/${bytes.toString('hex')}`;
}
