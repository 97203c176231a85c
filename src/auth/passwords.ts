/**
 * Password hashing with argon2id (@node-rs/argon2 runs it on libuv's thread pool, so hashing never
 * blocks the event loop or a realm actor). The only module that imports argon2.
 */
import { hash, verify, Algorithm } from '@node-rs/argon2';

/** Hashes a password; resolves with a PHC string (`$argon2id$v=19$...`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id });
}

/** Whether `password` matches `phc`; false (never a throw) for a malformed hash. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}
