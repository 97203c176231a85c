/**
 * Custom profile fields (https://zulip.com/api/create-custom-profile-field;
 * https://zulip.com/api/get-custom-profile-fields): the organization's field
 * definitions, each user's values, their records and `evolve` steps, and the wire serializers.
 * The validation rules the handlers share are in `custom-profile-field-checks.ts`.
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

/**
 * Zulip's custom profile field object (`CustomProfileField.as_dict()`,
 * https://zulip.com/api/get-custom-profile-fields). The client events that carry it check it
 * against their schema at compile time (a handler's event payload is the schema's static type).
 */
export interface CustomProfileFieldWire {
  id: number;
  name: string;
  type: number;
  hint: string;
  /** JSON text of the SELECT options or EXTERNAL_ACCOUNT subtype; '' for other types. */
  field_data: string;
  order: number;
  required: boolean;
  editable_by_user: boolean;
  display_in_profile_summary?: true;
}

/** Zulip's `CustomProfileField.as_dict()`: `display_in_profile_summary` only when true. */
export function fieldToWire(f: CustomProfileField): CustomProfileFieldWire {
  const wire: CustomProfileFieldWire = {
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
export function fieldsToWire(state: RealmState): CustomProfileFieldWire[] {
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
export function fieldsEvent(state: RealmState): { userIds: number[]; payload: { type: 'custom_profile_fields'; fields: CustomProfileFieldWire[] } } {
  const userIds = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  return { userIds, payload: { type: 'custom_profile_fields', fields: fieldsToWire(state) } };
}

/** SHORT_TEXT and LONG_TEXT values are Markdown (`is_renderable`). */
export function isRenderable(type: number): boolean {
  return type === FieldType.SHORT_TEXT || type === FieldType.LONG_TEXT;
}
