/**
 * Validation of custom profile fields, as Zulip's zerver/views/custom_profile_fields.py and
 * zerver/lib/validator.py do it: the request-level `field_data` shape, a field definition
 * (`validate_custom_profile_field`, `validate_custom_field_data`) and a user's value of each type
 * (the per-type validators of `CustomProfileField.FIELD_VALIDATORS`). Messages are Zulip's; each
 * check returns the error message (or a failed result) rather than throwing.
 */
import type { RealmState } from './realm-state.js';
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  FieldType,
  HINT_MAX_LENGTH,
  NAME_MAX_LENGTH,
  type CustomProfileField,
} from './custom-profile-fields.js';

const codePoints = (s: string) => [...s].length;

/**
 * Django's `URLValidator` for http(s)/ftp(s), simplified: scheme, host with a dot or localhost, no
 * spaces.
 */
export function isValidUrl(s: string): boolean {
  const m = /^(https?|ftps?):\/\/([^\s/?#@]+@)?(\[[0-9a-fA-F:.]+\]|[^\s/?#:@]+)(:\d{1,5})?([/?#][^\s]*)?$/i.exec(s);
  if (m === null) return false;
  const host = m[3]!;
  if (host.startsWith('[')) return true;
  if (host.toLowerCase() === 'localhost') return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return host.split('.').every((p) => Number(p) <= 255);
  const labels = host.split('.');
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1]!;
  if (!/^([a-z\u00a1-\uffff]{2,63}|xn--[a-z0-9]{1,59})$/i.test(tld)) return false;
  return labels.every((l) => /^[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?$/i.test(l));
}

/** `check_required_string`. */
function requiredString(varName: string, v: unknown): string | null {
  if (typeof v !== 'string') return `${varName} is not a string`;
  if (v.trim() === '') return `${varName} cannot be blank.`;
  return null;
}

/** `check_dict_only(required, optional)` with its check order; extra keys last. */
function dictOnly(
  varName: string,
  v: unknown,
  required: Array<[string, (name: string, v: unknown) => string | null]>,
  optional: Array<[string, (name: string, v: unknown) => string | null]>,
): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${varName} is not a dict`;
  const d = v as Record<string, unknown>;
  for (const [k, check] of required) {
    if (!(k in d)) return `${k} key is missing from ${varName}`;
    const e = check(`${varName}["${k}"]`, d[k]);
    if (e !== null) return e;
  }
  for (const [k, check] of optional) {
    if (!(k in d)) continue;
    const e = check(`${varName}["${k}"]`, d[k]);
    if (e !== null) return e;
  }
  const known = new Set([...required, ...optional].map(([k]) => k));
  const extra = Object.keys(d).filter((k) => !known.has(k));
  return extra.length > 0 ? `Unexpected arguments: ${extra.join(', ')}` : null;
}

/** `check_external_account_url_pattern`. */
function urlPattern(varName: string, v: unknown): string | null {
  if (typeof v !== 'string') return `${varName} is not a string`;
  if (v.split('%(username)s').length !== 2) return "URL pattern must contain '%(username)s'.";
  return isValidUrl(v.replace('%(username)s', 'username')) ? null : `${varName} is not a URL`;
}

/** The request-level shape of `field_data`: a dict whose values are strings or dicts of strings. */
export function checkFieldDataShape(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'field_data is not a dict';
  for (const item of Object.values(v)) {
    if (typeof item === 'string') continue;
    if (typeof item === 'object' && item !== null && !Array.isArray(item) && Object.values(item).every((x) => typeof x === 'string')) continue;
    return 'field_data contains a value that is not an allowed_type';
  }
  return null;
}

/** `validate_custom_field_data`: SELECT choices and EXTERNAL_ACCOUNT subtype/url_pattern. */
export function checkFieldData(type: number, data: Record<string, unknown>): string | null {
  if (type === FieldType.SELECT) {
    const entries = Object.entries(data);
    if (entries.length < 1) return 'Field must have at least one choice.';
    const texts = new Set<string>();
    for (const [key, value] of entries) {
      if (key.trim() === '') return "'value' cannot be blank.";
      const e = dictOnly('field_data', value, [['text', requiredString], ['order', requiredString]], []);
      if (e !== null) return e;
      texts.add((value as { text: string }).text);
    }
    if (texts.size !== entries.length) return 'Field must not have duplicate choices.';
  } else if (type === FieldType.EXTERNAL_ACCOUNT) {
    const e = dictOnly('field_data', data, [['subtype', requiredString]], [['url_pattern', urlPattern]]);
    if (e !== null) return e;
    const subtype = data.subtype as string;
    if (!(subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
      if (subtype !== 'custom') return 'Invalid external account type';
      if (!('url_pattern' in data)) return 'Custom external account must define URL pattern';
    }
  }
  return null;
}

/** Whether (type, data) is a default external account (twitter/github). */
export function isDefaultExternal(type: number, data: Record<string, unknown>): boolean {
  return type === FieldType.EXTERNAL_ACCOUNT && typeof data.subtype === 'string' && Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, data.subtype);
}

/** `validate_custom_profile_field`: field data, then label/hint (unless default external), then type. */
export function checkFieldDefinition(name: string, hint: string, type: number, data: Record<string, unknown>): string | null {
  const e = checkFieldData(type, data);
  if (e !== null) return e;
  if (!isDefaultExternal(type, data)) {
    if (name.length === 0) return 'Label cannot be blank.';
    if (codePoints(hint) > HINT_MAX_LENGTH) return `hint is too long (limit: ${HINT_MAX_LENGTH} characters)`;
    if (codePoints(name) > NAME_MAX_LENGTH) return `name is too long (limit: ${NAME_MAX_LENGTH} characters)`;
  }
  if (!(Object.values(FieldType) as number[]).includes(type)) return 'Invalid field type.';
  return null;
}

/** Whether a date string is exactly `YYYY-MM-DD` and a real calendar date (Python's strptime round trip). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const dt = new Date(Date.UTC(2000, mo - 1, d));
  dt.setUTCFullYear(y);
  return dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/**
 * Validates a user's value for `field` (Zulip's `validate_user_custom_profile_field`) and returns
 * the string to store, or the error message. Messages use the field's name as variable name.
 */
export function checkFieldValue(state: RealmState, field: CustomProfileField, value: unknown): { ok: true; value: string } | { ok: false; msg: string } {
  const name = field.name;
  const bad = (msg: string) => ({ ok: false as const, msg });
  const capped = (limit: number) => {
    if (typeof value !== 'string') return bad(`${name} is not a string`);
    if (codePoints(value) > limit) return bad(`${name} is too long (limit: ${limit} characters)`);
    return { ok: true as const, value };
  };
  switch (field.type) {
    case FieldType.SHORT_TEXT:
    case FieldType.EXTERNAL_ACCOUNT:
    case FieldType.PRONOUNS:
      return capped(50);
    case FieldType.LONG_TEXT:
      return capped(500);
    case FieldType.DATE:
      if (typeof value !== 'string') return bad(`${name} is not a string`);
      return isDate(value) ? { ok: true, value } : bad(`${name} is not a date`);
    case FieldType.URL:
      if (typeof value !== 'string') return bad(`${name} is not a string`);
      return isValidUrl(value) ? { ok: true, value } : bad(`${name} is not a URL`);
    case FieldType.SELECT: {
      if (typeof value !== 'string') return bad(`${name} is not a string`);
      const keys = JSON.parse(field.fieldData || '{}') as Record<string, unknown>;
      return Object.hasOwn(keys, value) ? { ok: true, value } : bad(`'${value}' is not a valid choice for '${name}'.`);
    }
    case FieldType.USER: {
      if (!Array.isArray(value)) return bad('User IDs is not a list');
      for (let i = 0; i < value.length; i++) if (!Number.isInteger(value[i])) return bad(`User IDs[${i}] is not an integer`);
      for (const id of value as number[]) {
        const u = state.users.get(id);
        if (u === undefined) return bad(`Invalid user ID: ${id}`);
        if (!u.isActive) return bad(`User with ID ${id} is deactivated`);
        if (u.isBot) return bad(`User with ID ${id} is a bot`);
      }
      return { ok: true, value: JSON.stringify(value) };
    }
    default:
      return bad(`Invalid field type.`);
  }
}
