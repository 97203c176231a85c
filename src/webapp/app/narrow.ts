/**
 * Narrows on the client: Zulip's search syntax to narrow terms (as Zulip's web app
 * `web/src/filter.ts` `Filter.parse`), the terms back to text for the search box, a URL hash
 * per narrow, and the local test "does a new message belong in the open narrow" for the terms
 * the client can decide alone (else the feed asks the server again).
 */
import type { Message, NarrowTerm } from './types.js';

/** Operator aliases Zulip accepts in the search box, mapped to their modern names. */
const ALIASES: Record<string, string> = { stream: 'channel', 'pm-with': 'dm', from: 'sender', subject: 'topic', streams: 'channels' };

/**
 * Parses Zulip's search syntax: `operator:operand` words (operands may be "double quoted"),
 * `-operator:operand` negated, everything else joined into one `search` term.
 * `channel:Verona topic:"hello world" lunch` → channel, topic, search "lunch".
 */
export function parseSearch(text: string): NarrowTerm[] {
  const terms: NarrowTerm[] = [];
  const words: string[] = [];
  const re = /(-?)([a-z-]+):(?:"([^"]*)"|(\S+))|"([^"]*)"|(\S+)/gi;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[2] !== undefined) {
      const operator = ALIASES[m[2].toLowerCase()] ?? m[2].toLowerCase();
      const operand = (m[3] ?? m[4] ?? '').replace(/\+/g, ' ');
      terms.push(m[1] === '-' ? { operator, operand, negated: true } : { operator, operand });
    } else {
      words.push(m[5] ?? m[6] ?? '');
    }
  }
  const search = words.join(' ').trim();
  if (search !== '') terms.push({ operator: 'search', operand: search });
  return terms;
}

const quote = (s: string) => (/\s/.test(s) ? `"${s}"` : s);

/** The search-box text of a narrow (inverse of `parseSearch`). */
export function narrowToText(terms: readonly NarrowTerm[]): string {
  return terms
    .map((t) => (t.operator === 'search' ? String(t.operand) : `${t.negated ? '-' : ''}${t.operator}:${quote(String(t.operand))}`))
    .join(' ');
}

/** `#narrow/channel/Verona/topic/welcome` (operands URI-encoded); `#` for all messages. */
export function narrowToHash(terms: readonly NarrowTerm[]): string {
  if (terms.length === 0) return '#';
  return '#narrow/' + terms.map((t) => `${t.negated ? '-' : ''}${t.operator}/${encodeURIComponent(String(t.operand))}`).join('/');
}

/** Inverse of `narrowToHash`; null when the hash is not a narrow. */
export function hashToNarrow(hash: string): NarrowTerm[] | null {
  if (!hash.startsWith('#narrow/')) return hash === '' || hash === '#' ? [] : null;
  const parts = hash.slice('#narrow/'.length).split('/');
  const terms: NarrowTerm[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const negated = parts[i]!.startsWith('-');
    const operator = negated ? parts[i]!.slice(1) : parts[i]!;
    let operand: string;
    try {
      operand = decodeURIComponent(parts[i + 1]!);
    } catch {
      return null;
    }
    terms.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return terms;
}

/** What the client knows to decide a narrow locally. */
export interface NarrowContext {
  myUserId: number;
  streamName(id: number): string | undefined;
  userIdByEmail(email: string): number | undefined;
}

/** Recipient user ids of a direct message other than me, sorted (my own id for a self-DM). */
export function dmPeers(message: Message, myUserId: number): number[] {
  if (!Array.isArray(message.display_recipient)) return [];
  const ids = message.display_recipient.map((r) => r.id).filter((id) => id !== myUserId);
  return ids.length === 0 ? [myUserId] : ids.sort((a, b) => a - b);
}

/**
 * Whether `message` matches `terms`, or null when the client cannot tell (full-text search,
 * `has:`, `near:`...): the feed then refetches instead of guessing.
 */
export function matchesNarrow(message: Message, terms: readonly NarrowTerm[], ctx: NarrowContext): boolean | null {
  for (const term of terms) {
    const operand = String(term.operand);
    let hit: boolean;
    switch (term.operator) {
      case 'channel':
        hit = message.type === 'stream' && (ctx.streamName(message.stream_id ?? -1) ?? '').toLowerCase() === operand.toLowerCase();
        break;
      case 'topic':
        hit = message.type === 'stream' && message.subject.toLowerCase() === operand.toLowerCase();
        break;
      case 'sender':
        hit = operand === 'me' ? message.sender_id === ctx.myUserId : message.sender_email.toLowerCase() === operand.toLowerCase();
        break;
      case 'dm': {
        if (message.type !== 'private') {
          hit = false;
          break;
        }
        const wanted = operand
          .split(',')
          .map((e) => ctx.userIdByEmail(e.trim()))
          .filter((id): id is number => id !== undefined && id !== ctx.myUserId)
          .sort((a, b) => a - b);
        const peers = dmPeers(message, ctx.myUserId);
        hit = (wanted.length === 0 ? [ctx.myUserId] : wanted).join(',') === peers.join(',');
        break;
      }
      case 'is':
        if (operand === 'dm' || operand === 'private') hit = message.type === 'private';
        else if (operand === 'starred') hit = message.flags.includes('starred');
        else if (operand === 'mentioned') hit = message.flags.includes('mentioned') || message.flags.includes('wildcard_mentioned');
        else if (operand === 'unread') hit = !message.flags.includes('read');
        else return null;
        break;
      default:
        return null;
    }
    if (hit === (term.negated === true)) return false;
  }
  return true;
}

/** The channel/topic a narrow names, when it names one (for the compose box and sidebar). */
export function narrowPlace(terms: readonly NarrowTerm[]): { channel?: string; topic?: string; dm?: string } {
  const out: { channel?: string; topic?: string; dm?: string } = {};
  for (const t of terms) {
    if (t.negated) continue;
    if (t.operator === 'channel') out.channel = String(t.operand);
    if (t.operator === 'topic') out.topic = String(t.operand);
    if (t.operator === 'dm') out.dm = String(t.operand);
  }
  return out;
}
