/**
 * Custom profile fields (https://zulip.com/api/create-custom-profile-field; https://zulip.com/api/get-custom-profile-fields): the organization's field
 * definitions, each user's values, their records and `evolve` steps, the wire serializers, and
 * the validation rules shared by the handlers (Zulip's `validate_custom_profile_field`,
 * `validate_custom_field_data` and the per-type value validators).
 *
 * Field ids are per realm and never reused; a new field's `order` is its id. `fieldData` is kept
 * as the JSON text Zulip returns (`""` for types without data), so the serializer never re-encodes.
 * Values are strings as Zulip stores them (USER values as the JSON text `"[1,2]"`); SHORT_TEXT and
 * LONG_TEXT values carry their rendered HTML, computed in the handler (replay never re-renders).
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** Field type codes (`CustomProfileField.*`). */
export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** Zulip's limits (`NAME_MAX_LENGTH`, `HINT_MAX_LENGTH`, `MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS`). */
export const NAME_MAX_LENGTH = 40;
export const HINT_MAX_LENGTH = 80;
export const MAX_SUMMARY_FIELDS = 2;

/** `DEFAULT_EXTERNAL_ACCOUNTS`: the subtypes whose name/hint/url come from the server. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Readonly<Record<string, { name: string }>> = {
  twitter: { name: 'Twitter username' },
  github: { name: 'GitHub username' },
};

/** One field definition. */
export interface CustomProfileField {
  readonly id: number;
  name: string;
  hint: string;
  type: number;
  /** JSON text as returned on the wire; `""` for types without data. */
  fieldData: string;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** One user's value of one field. `renderedValue` only for SHORT_TEXT / LONG_TEXT. */
export interface ProfileValue {
  value: string;
  renderedValue?: string;
}

/** The realm's custom profile field state (held in `RealmState.profileFields`). */
export interface ProfileFieldsState {
  fields: Map<number, CustomProfileField>;
  /** user id → (field id → value). */
  values: Map<number, Map<number, ProfileValue>>;
  nextId: number;
}

export function emptyProfileFields(): ProfileFieldsState {
  return { fields: new Map(), values: new Map(), nextId: 1 };
}

// ---------------------------------------------------------------------------------------------
// Records

/** A field was created (`POST /realm/profile_fields`). */
export interface CustomProfileFieldCreated {
  type: 'custom_profile_field_created';
  v: 1;
  field: CustomProfileField;
}

/**
 * A field's definition was replaced (`PATCH /realm/profile_fields/{id}`); for SELECT fields the
 * values whose choice key disappeared are deleted by `evolve`.
 */
export interface CustomProfileFieldUpdated {
  type: 'custom_profile_field_updated';
  v: 1;
  field: CustomProfileField;
}

/** A field and all its values were deleted. */
export interface CustomProfileFieldDeleted {
  type: 'custom_profile_field_deleted';
  v: 1;
  fieldId: number;
}

/** Fields were reordered: `order[fieldId]` is the new order of each field listed. */
export interface CustomProfileFieldsReordered {
  type: 'custom_profile_fields_reordered';
  v: 1;
  order: Array<[fieldId: number, order: number]>;
}

/** Values of one user changed; `value: null` deletes the value. */
export interface CustomProfileValuesChanged {
  type: 'custom_profile_values_changed';
  v: 1;
  userId: number;
  changes: Array<{ fieldId: number; value: string | null; renderedValue?: string }>;
}

export type CustomProfileFieldRecord =
  | CustomProfileFieldCreated
  | CustomProfileFieldUpdated
  | CustomProfileFieldDeleted
  | CustomProfileFieldsReordered
  | CustomProfileValuesChanged;

/** `evolve` for every custom profile field record. */
export function evolveProfileFields(state: RealmState, r: CustomProfileFieldRecord): void {
  const pf = state.profileFields;
  switch (r.type) {
    case 'custom_profile_field_created':
      pf.fields.set(r.field.id, { ...r.field });
      if (r.field.id >= pf.nextId) pf.nextId = r.field.id + 1;
      return;
    case 'custom_profile_field_updated': {
      pf.fields.set(r.field.id, { ...r.field });
      if (r.field.type === FieldType.SELECT) {
        const keys = new Set(Object.keys(JSON.parse(r.field.fieldData || '{}') as object));
        for (const values of pf.values.values()) {
          const v = values.get(r.field.id);
          if (v !== undefined && !keys.has(v.value)) values.delete(r.field.id);
        }
      }
      return;
    }
    case 'custom_profile_field_deleted':
      pf.fields.delete(r.fieldId);
      for (const values of pf.values.values()) values.delete(r.fieldId);
      return;
    case 'custom_profile_fields_reordered':
      for (const [id, order] of r.order) {
        const f = pf.fields.get(id);
        if (f !== undefined) f.order = order;
      }
      return;
    case 'custom_profile_values_changed': {
      let values = pf.values.get(r.userId);
      if (values === undefined) pf.values.set(r.userId, (values = new Map()));
      for (const c of r.changes) {
        if (c.value === null) values.delete(c.fieldId);
        else values.set(c.fieldId, c.renderedValue === undefined ? { value: c.value } : { value: c.value, renderedValue: c.renderedValue });
      }
      if (values.size === 0) pf.values.delete(r.userId);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

// ---------------------------------------------------------------------------------------------
// Snapshot

/** Snapshot form (absent in snapshots written before custom profile fields: none). */
export interface ProfileFieldsCore {
  fields: CustomProfileField[];
  values: Array<[userId: number, values: Array<[fieldId: number, value: ProfileValue]>]>;
  nextId: number;
}

export function profileFieldsToCore(state: RealmState): ProfileFieldsCore {
  const pf = state.profileFields;
  return {
    fields: [...pf.fields.values()],
    values: [...pf.values].map(([userId, values]) => [userId, [...values]]),
    nextId: pf.nextId,
  };
}

export function profileFieldsFromCore(state: RealmState, core: ProfileFieldsCore | undefined): void {
  const pf = emptyProfileFields();
  if (core !== undefined) {
    for (const f of core.fields) pf.fields.set(f.id, f);
    for (const [userId, values] of core.values) pf.values.set(userId, new Map(values));
    pf.nextId = core.nextId;
  }
  state.profileFields = pf;
}

// ---------------------------------------------------------------------------------------------
// Wire

/** Zulip's `CustomProfileField.as_dict()`: `display_in_profile_summary` only when true. */
export function fieldToWire(f: CustomProfileField): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    type: f.type,
    hint: f.hint,
    field_data: f.fieldData,
    order: f.order,
    required: f.required,
    editable_by_user: f.editableByUser,
  };
  if (f.displayInProfileSummary) wire.display_in_profile_summary = true;
  return wire;
}

/** The realm's fields, sorted by `order` (then id), as on the wire. */
export function fieldsToWire(state: RealmState): Record<string, unknown>[] {
  return [...state.profileFields.fields.values()].sort((a, b) => a.order - b.order || a.id - b.id).map(fieldToWire);
}

/** A user object's `profile_data`: `{"<field id>": {value, rendered_value?}}` for fields with a value. */
export function profileDataToWire(state: RealmState, userId: number): Record<string, { value: string; rendered_value?: string }> {
  const out: Record<string, { value: string; rendered_value?: string }> = {};
  const values = state.profileFields.values.get(userId);
  if (values === undefined) return out;
  for (const [fieldId, v] of [...values].sort((a, b) => a[0] - b[0])) {
    out[String(fieldId)] = v.renderedValue === undefined ? { value: v.value } : { value: v.value, rendered_value: v.renderedValue };
  }
  return out;
}

/** The `custom_profile_fields` event: every field, to every active user. */
export function fieldsEvent(state: RealmState): { userIds: number[]; payload: Record<string, unknown> } {
  const userIds = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  return { userIds, payload: { type: 'custom_profile_fields', fields: fieldsToWire(state) } };
}

/** SHORT_TEXT and LONG_TEXT values are Markdown (`is_renderable`). */
export function isRenderable(type: number): boolean {
  return type === FieldType.SHORT_TEXT || type === FieldType.LONG_TEXT;
}

// ---------------------------------------------------------------------------------------------
// Validation (messages are Zulip's; each returns the error message or null)

const codePoints = (s: string) => [...s].length;

/** Django's `URLValidator` for http(s)/ftp(s), simplified: scheme, host with a dot or localhost, no spaces. */
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
