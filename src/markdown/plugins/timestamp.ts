/**
 * `<time:…>` timestamps, Zulip's `Timestamp` inline pattern (priority 75,
 * zerver/lib/markdown/__init__.py): the text is parsed as a date/time (Zulip uses
 * `dateutil.parser.parse` with its `common_timezones` abbreviations, falling back to a UNIX
 * timestamp in seconds); naive times are UTC.
 *
 *   valid    `<time datetime="2017-06-05T22:30:00Z">Jun 5th 2017, 10:30PM</time>`
 *   invalid  `<span class="timestamp-error">Invalid time format: …</span>`
 *
 * {@link parseTimestamp} implements the parts of dateutil's parser people write in messages
 * (and the web app's composer inserts: ISO 8601 with an offset): ISO dates and times, month and
 * weekday names, `5th`-style ordinals, `10:30PM`, `5:30 am`, `+05:30` offsets, timezone
 * abbreviations after a time, and dateutil's M/D/Y reading of ambiguous numeric dates. Fields
 * the text leaves out come from today's date (UTC), as dateutil's default does; "today" is the
 * render context's `nowSeconds` (the command's clock), so rendering stays a pure function.
 * Without a realm context (plain renders) `<time:…>` stays literal text, like other Zulip syntax.
 */
import type { MarkdownPlugin } from '../render.js';
import type { InlineNode, InlinePattern } from './inline-engine.js';

/** Zulip's `common_timezones` (zerver/lib/timezone.py): abbreviation → UTC offset, seconds. */
const COMMON_TIMEZONES: Readonly<Record<string, number>> = {
  SST: -39600, HST: -36000, AKST: -32400, HDT: -32400, AKDT: -28800, PST: -28800, MST: -25200,
  PDT: -25200, CST: -21600, MDT: -21600, CDT: -18000, EST: -18000, AST: -14400, EDT: -14400,
  NST: -12600, ADT: -10800, NDT: -9000, GMT: 0, UTC: 0, WET: 0, BST: 3600, CET: 3600, MET: 3600,
  WAT: 3600, WEST: 3600, CAT: 7200, CEST: 7200, EET: 7200, MEST: 7200, SAST: 7200, EAT: 10800,
  EEST: 10800, IDT: 10800, MSK: 10800, PKT: 18000, IST: 19800, WIB: 25200, AWST: 28800,
  HKT: 28800, WITA: 28800, JST: 32400, KST: 32400, WIT: 32400, ACST: 34200, AEST: 36000,
  ChST: 36000, ACDT: 37800, AEDT: 39600, NZST: 43200, NZDT: 46800,
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** dateutil's `JUMP` words (separators are handled by the lexer). */
const JUMP = new Set(['at', 'on', 'and', 'ad', 'm', 't', 'of', 'st', 'nd', 'rd', 'th']);
const UTC_NAMES = new Set(['UTC', 'GMT', 'Z', 'z']);

function monthIndex(word: string): number | null {
  const w = word.toLowerCase();
  if (w === 'sept') return 8;
  const i = MONTHS.indexOf(w);
  if (i >= 0) return i;
  const j = MONTH_NAMES.indexOf(w);
  return j >= 0 ? j : null;
}

function isWeekday(word: string): boolean {
  const w = word.toLowerCase();
  return WEEKDAYS.includes(w) || WEEKDAY_NAMES.includes(w);
}

/** dateutil's lexer, simplified: runs of digits (with one `.` fraction), letters, or one other character. */
const TOKEN_RE = /\d+(?:\.\d+)?|\p{L}+|\s+|./gu;

interface Fields {
  ymd: { value: number; digits: number }[];
  month: number | null;
  hour: number | null;
  minute: number | null;
  second: number | null;
  micro: number;
  offset: number | null;
}

/** The date/time dateutil would read, as epoch milliseconds (+ microsecond remainder), or null. */
function parseDateutil(input: string, today: Date): { ms: number; micro: number } | null {
  const tokens = (input.match(TOKEN_RE) ?? []).filter((t) => !/^\s+$/.test(t));
  if (tokens.length === 0) return null;
  const f: Fields = { ymd: [], month: null, hour: null, minute: null, second: null, micro: 0, offset: null };
  let ampm: 'am' | 'pm' | null = null;
  const isNum = (t: string | undefined) => t !== undefined && /^\d/.test(t);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (isNum(t)) {
      if (tokens[i + 1] === ':' && isNum(tokens[i + 2]) && f.hour === null) {
        // H:M[:S[.f]]
        f.hour = Number(t);
        f.minute = Number(tokens[i + 2]);
        i += 2;
        if (tokens[i + 1] === ':' && isNum(tokens[i + 2])) {
          const sec = tokens[i + 2]!;
          f.second = Math.floor(Number(sec));
          const frac = sec.split('.')[1];
          if (frac !== undefined) f.micro = Number((frac + '000000').slice(0, 6));
          i += 2;
        }
        continue;
      }
      const next = tokens[i + 1]?.toLowerCase();
      if ((next === 'am' || next === 'pm' || next === 'a' || next === 'p') && f.hour === null && !t.includes('.')) {
        f.hour = Number(t);
        continue; // the am/pm token is handled next
      }
      if (t.includes('.')) return null;
      if (f.ymd.length === 0 && tokens.length === 1 && (t.length === 8 || t.length === 6)) {
        // YYYYMMDD / YYMMDD
        const y = t.length === 8 ? Number(t.slice(0, 4)) : 2000 + Number(t.slice(0, 2));
        const rest = t.slice(t.length - 4);
        f.ymd.push({ value: y, digits: 4 }, { value: Number(rest.slice(0, 2)), digits: 2 }, { value: Number(rest.slice(2)), digits: 2 });
        continue;
      }
      if ((tokens[i - 1] === '+' || tokens[i - 1] === '-') && f.hour !== null && f.offset === null) {
        // +HH, +HHMM, +HH:MM
        const sign = tokens[i - 1] === '-' ? -1 : 1;
        let hh: number;
        let mm = 0;
        if (t.length === 4) {
          hh = Number(t.slice(0, 2));
          mm = Number(t.slice(2));
        } else if (t.length <= 2) {
          hh = Number(t);
          if (tokens[i + 1] === ':' && isNum(tokens[i + 2])) {
            mm = Number(tokens[i + 2]);
            i += 2;
          }
        } else {
          return null;
        }
        f.offset = sign * (hh * 3600 + mm * 60);
        continue;
      }
      if (f.ymd.length >= 3) return null;
      f.ymd.push({ value: Number(t), digits: t.length });
      continue;
    }
    if (/^\p{L}+$/u.test(t)) {
      const lower = t.toLowerCase();
      const month = monthIndex(t);
      if (month !== null && f.month === null) {
        f.month = month;
        continue;
      }
      if (isWeekday(t)) continue;
      if (lower === 'am' || lower === 'pm' || lower === 'a' || lower === 'p') {
        if (f.hour === null || ampm !== null || f.hour > 12) return null;
        ampm = lower.startsWith('a') ? 'am' : 'pm';
        continue;
      }
      if (f.hour !== null && f.offset === null && (UTC_NAMES.has(t) || t in COMMON_TIMEZONES)) {
        f.offset = UTC_NAMES.has(t) ? 0 : COMMON_TIMEZONES[t]!;
        continue;
      }
      if (JUMP.has(lower)) continue;
      return null;
    }
    if (' ,;-/.\'+'.includes(t)) continue;
    return null;
  }
  if (ampm !== null && f.hour !== null) {
    if (ampm === 'pm' && f.hour < 12) f.hour += 12;
    else if (ampm === 'am' && f.hour === 12) f.hour = 0;
  }

  // Resolve year / month / day (dateutil's `_ymd.resolve_ymd`, dayfirst = yearfirst = False).
  let year: number | null = null;
  let month: number | null = f.month;
  let day: number | null = null;
  const vals = f.ymd;
  const isYear = (v: { value: number; digits: number }) => v.digits > 2 || v.value > 31;
  if (month !== null) {
    if (vals.length === 1) {
      if (isYear(vals[0]!)) year = vals[0]!.value;
      else day = vals[0]!.value;
    } else if (vals.length === 2) {
      if (isYear(vals[0]!)) [year, day] = [vals[0]!.value, vals[1]!.value];
      else [day, year] = [vals[0]!.value, vals[1]!.value];
    } else if (vals.length > 2) {
      return null;
    }
  } else if (vals.length === 1) {
    if (isYear(vals[0]!)) return null; // dateutil: a lone big number is a year out of range or no date
    day = vals[0]!.value;
  } else if (vals.length === 2) {
    if (isYear(vals[0]!)) [year, month] = [vals[0]!.value, vals[1]!.value - 1];
    else if (isYear(vals[1]!)) [month, year] = [vals[0]!.value - 1, vals[1]!.value];
    else [month, day] = [vals[0]!.value - 1, vals[1]!.value];
  } else if (vals.length === 3) {
    const [a, b, c] = vals as [typeof vals[0], typeof vals[0], typeof vals[0]];
    if (isYear(a)) [year, month, day] = [a.value, b.value - 1, c.value];
    else if (a.value > 12) [day, month, year] = [a.value, b.value - 1, c.value];
    else [month, day, year] = [a.value - 1, b.value, c.value];
  }
  if (year !== null && vals.some((v) => v.value === year && v.digits <= 2)) year += year < 50 ? 2000 : 1900;
  year ??= today.getUTCFullYear();
  month ??= today.getUTCMonth();
  day ??= today.getUTCDate();
  const hour = f.hour ?? 0;
  const minute = f.minute ?? 0;
  const second = f.second ?? 0;
  if (year < 1 || year > 9999 || month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const base = Date.UTC(2000, month, day, hour, minute, second);
  const d = new Date(base);
  if (d.getUTCDate() !== day) return null; // e.g. February 30
  d.setUTCFullYear(year);
  const ms = d.getTime() - (f.offset ?? 0) * 1000;
  return { ms, micro: f.micro };
}

/** Python's `datetime.isoformat()` for a UTC instant, `+00:00` written `Z`. */
function isoformat(ms: number, micro: number): string | null {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (Number.isNaN(d.getTime()) || !(year >= 1 && year <= 9999)) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(year, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date}T${time}${micro ? '.' + pad(micro, 6) : ''}Z`;
}

/** Python's `float()` syntax (decimal, exponent, `_` separators; no inf/nan: those never render). */
const PY_FLOAT_RE = /^\s*[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?\s*$/;

/**
 * The ISO 8601 UTC string (`2017-06-05T22:30:00Z`, microseconds when nonzero) Zulip puts in
 * `<time datetime>` for the text of a `<time:…>`, or null when Zulip shows a `timestamp-error`.
 * `now` supplies the fields the text leaves out.
 */
export function parseTimestamp(input: string, now: Date): string | null {
  const parsed = parseDateutil(input, now);
  if (parsed !== null) return isoformat(parsed.ms, parsed.micro);
  if (!PY_FLOAT_RE.test(input)) return null;
  const seconds = Number(input.replaceAll('_', ''));
  if (!Number.isFinite(seconds)) return null;
  const whole = Math.floor(seconds);
  const micro = Math.round((seconds - whole) * 1e6);
  return isoformat(whole * 1000 + Math.floor(micro / 1000), micro);
}

/** The node for the text of one `<time:…>`; `now` supplies the fields the text leaves out. */
function timestampNode(input: string, now: Date): InlineNode {
  const iso = parseTimestamp(input, now);
  if (iso === null) {
    return { kind: 'element', open: '<span class="timestamp-error">', close: '</span>', content: `Invalid time format: ${input}`, atomic: true };
  }
  return { kind: 'element', open: `<time datetime="${iso}">`, close: '</time>', content: input, atomic: true };
}

/**
 * Zulip's `<time:([^>]*?)>` (legacy pattern, rescanned after each match) in one pass: a match
 * ends at the first `>` after its `<time:`, so the leftmost `<time:` always wins and no
 * placeholder completes an earlier one. Without a `>` after a `<time:`, no later one matches
 * either (the regex would scan to the end from every one of them: quadratic).
 */
const timestamp: InlinePattern = {
  name: 'timestamp',
  priority: 75,
  replaceAll(data, ctx, stash) {
    // Without realm context (plain renders) timestamps stay text; "now" is the command's clock.
    const zulip = ctx.env.zulip;
    if (zulip === undefined) return data;
    // Read only when a `<time:…>` is present: a render that reads the clock cannot be reused at
    // another time (realm/render-offload.ts renders elsewhere first and checks what was read).
    let now: Date | undefined;
    let out = '';
    let copied = 0;
    for (let open = data.indexOf('<time:'); open >= 0; open = data.indexOf('<time:', copied)) {
      const close = data.indexOf('>', open + 6);
      if (close < 0) break;
      out += data.slice(copied, open) + stash(timestampNode(data.slice(open + 6, close), (now ??= new Date(zulip.nowSeconds * 1000))));
      copied = close + 1;
    }
    return copied === 0 ? data : out + data.slice(copied);
  },
};

/** `<time:…>` timestamps. */
export const timestampPlugin: MarkdownPlugin = {
  name: 'timestamp',
  inlinePatterns: [timestamp],
};
