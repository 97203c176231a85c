/**
 * Server secrets kept beside the LMDB environment (Zulip keeps its in /etc/zulip/zulip-secrets.conf):
 * created once, randomly, written durably, and read back at every start, so values derived from
 * them and stored in rendered messages (camo URLs' HMACs) stay valid across restarts.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFileIfExists, writeFileDurablySync } from './durable-file.js';

const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The secret `name` (`camo-key` → `<dataDir>/camo-key.secret`): 32 random bytes as 64 hex
 * characters, created on first use. Throws the filesystem's error when it cannot be written.
 */
export function serverSecret(dataDir: string, name: string): string {
  if (!NAME.test(name)) throw new TypeError(`bad secret name ${name}`);
  const path = join(dataDir, `${name}.secret`);
  const existing = readFileIfExists(path)?.trim();
  if (existing !== undefined && /^[0-9a-f]{64}$/.test(existing)) return existing;
  const secret = randomBytes(32).toString('hex');
  writeFileDurablySync(path, secret + '\n');
  return secret;
}
