/**
 * Users (https://zulip.com/api/get-user): email-visibility rules, avatar URLs and account-name
 * validation. The user object itself is built in events/wire/users.ts.
 */
import { createHash } from 'node:crypto';
import { Role, type RealmState, type User } from './realm-state.js';
import { LRUCache } from 'lru-cache';
import { uploadedAvatarUrl } from './avatars.js';

/** Per-request facts the serializer needs. */
export interface UserView {
  /** Null avatar_url where allowed (https://zulip.com/api/get-users `client_gravatar`). */
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

/** Whether `viewer` may see `target`'s real email (visibility 1 everyone … 5 moderators). */
export function canSeeDeliveryEmail(viewer: User, target: User): boolean {
  if (viewer.id === target.id || target.isBot) return true;
  switch (target.emailAddressVisibility) {
    case 1:
      return true;
    case 2:
      return viewer.role !== Role.guest;
    case 3:
      return viewer.role <= Role.admin;
    case 5:
      return viewer.role <= Role.moderator;
    default:
      return false;
  }
}

/** The API email: the real address when visible to everyone, else `user<id>@<host>`. */
export function apiEmail(user: User, host: string): string {
  return user.emailAddressVisibility === 1 || user.isBot ? user.email : `user${user.id}@${host}`;
}

/** Gravatar URL, as Zulip builds it for the default avatar source. Memoized: md5 per message read adds up. */
export function gravatarUrl(email: string, avatarVersion: number): string {
  const key = `${avatarVersion}:${email}`;
  let url = gravatarUrls.get(key);
  if (url === undefined) {
    const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
    url = `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${avatarVersion}`;
    gravatarUrls.set(key, url);
  }
  return url;
}
/**
 * `${avatarVersion}:${email}` → URL; least recently used evicted past 100,000 entries. Bounded by
 * `maxSize` rather than `max`: lru-cache preallocates `max` slots (~2.8 MB for 100,000, resident
 * from start-up, issue 17), while a `maxSize` cache grows with its entries.
 */
const gravatarUrls = new LRUCache<string, string>({ maxSize: 100_000, sizeCalculation: () => 1 });

/**
 * avatar_url (Zulip's zerver/lib/avatar.py `get_avatar_field`): the uploaded avatar's URL
 * (`avatars.ts`), else the gravatar — or null for a gravatar when the client computes gravatars
 * itself and the email is public.
 */
export function avatarUrl(user: User, clientGravatar: boolean): string | null {
  if (user.avatar !== undefined) return uploadedAvatarUrl(user.avatar, user.avatarVersion, false);
  if (clientGravatar && user.emailAddressVisibility === 1) return null;
  return gravatarUrl(user.email, user.avatarVersion);
}

/** avatar_url_medium (500 px): the uploaded avatar's `-medium` file, else the gravatar at `s=500`. */
export function avatarUrlMedium(user: User): string {
  if (user.avatar !== undefined) return uploadedAvatarUrl(user.avatar, user.avatarVersion, true);
  return `${gravatarUrl(user.email, user.avatarVersion)}&s=500`;
}

/** ISO 8601 with microseconds and `+00:00`, as Django serializes datetimes. */
export function isoDate(unixSeconds: number): string {
  const whole = Math.floor(unixSeconds);
  const micros = Math.round((unixSeconds - whole) * 1e6);
  const base = new Date(whole * 1000).toISOString().slice(0, 19);
  return micros === 0 ? `${base}+00:00` : `${base}.${String(micros).padStart(6, '0')}+00:00`;
}

/** Looks a user up by API email or delivery email, case-insensitively. */
export function findUserByEmail(state: RealmState, email: string): User | undefined {
  const lower = email.trim().toLowerCase();
  const id = state.usersByEmail.get(lower);
  if (id !== undefined) return state.users.get(id);
  const fake = /^user(\d+)@(.+)$/.exec(lower);
  if (fake !== null && fake[2] === state.host.toLowerCase()) return state.users.get(Number(fake[1]));
  return undefined;
}

/**
 * Validates a full name (`check_full_name`, https://zulip.com/api/get-user): returns the stripped name
 * or the error message.
 */
export function checkFullName(raw: string): { ok: true; name: string } | { ok: false; msg: string } {
  const name = raw.trim();
  if ([...name].length > 100) return { ok: false, msg: 'Name too long!' };
  if ([...name].length < 2) return { ok: false, msg: 'Name too short!' };
  if (/[\p{C}*`\\>"@]/u.test(name)) return { ok: false, msg: 'Invalid characters in name!' };
  if (/\|\d+$/.test(raw)) return { ok: false, msg: 'Invalid format!' };
  return { ok: true, name };
}

/** A syntactically valid email address (Django's validator, simplified; it allows the `localhost` domain). */
export function isValidEmail(email: string): boolean {
  return /^[^\s@]+@([^\s@]+\.[^\s@]+|localhost)$/i.test(email) && email.length <= 254;
}
