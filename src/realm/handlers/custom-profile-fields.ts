/**
 * Custom profile field commands and handlers (https://zulip.com/api/create-custom-profile-field;
 * https://zulip.com/api/get-custom-profile-fields):
 * create / update / delete / reorder field definitions (administrators only), and a user's own
 * values (`PATCH` / `DELETE /users/me/profile_data`, where the field is `editable_by_user` or the
 * user is an administrator).
 *
 * Check order follows Zulip's views: the summary limit first, then `validate_custom_profile_field`
 * (field data, label/hint unless a default external account, type), then the summary type
 * restriction, then the unique label. Events: `custom_profile_fields` with every field to every
 * active user after any definition change; `realm_user` update with `custom_profile_field` per
 * changed value to every active user. Values are validated all before any is changed, so a failed
 * request changes nothing.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { isRealmAdmin, requireRealmAdmin } from '../../domain/access.js';
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  FieldType,
  MAX_SUMMARY_FIELDS,
  evolveProfileFields,
  fieldsEvent,
  isRenderable,
  type CustomProfileField,
  type CustomProfileFieldRecord,
  type CustomProfileValuesChanged,
} from '../../domain/custom-profile-fields.js';
import { checkFieldDefinition, checkFieldValue, isDefaultExternal } from '../../domain/custom-profile-field-checks.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Decision, Handler } from '../decision.js';

/** The settable attributes of a field, as decoded by the endpoint (defaults applied). */
export interface FieldDefinitionInput {
  name: string;
  hint: string;
  /** The decoded `field_data` dict (its shape already checked by the endpoint). */
  fieldData: Record<string, unknown>;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** `POST /realm/profile_fields`. */
export interface CreateCustomProfileField extends FieldDefinitionInput {
  type: 'create_custom_profile_field';
  actorId: number;
  fieldType: number;
}

/** `PATCH /realm/profile_fields/{field_id}`: full replacement (omitted parameters are defaults). */
export interface UpdateCustomProfileField extends FieldDefinitionInput {
  type: 'update_custom_profile_field';
  actorId: number;
  fieldId: number;
}

/** `DELETE /realm/profile_fields/{field_id}`. */
export interface DeleteCustomProfileField {
  type: 'delete_custom_profile_field';
  actorId: number;
  fieldId: number;
}

/** `PATCH /realm/profile_fields`: `order` lists field ids; a field's new order is its index. */
export interface ReorderCustomProfileFields {
  type: 'reorder_custom_profile_fields';
  actorId: number;
  order: number[];
}

/** `PATCH /users/me/profile_data`: set values (`value` a string, or a list of user ids for USER fields). */
export interface SetCustomProfileValues {
  type: 'set_custom_profile_values';
  actorId: number;
  data: Array<{ id: number; value: unknown }>;
}

/** `DELETE /users/me/profile_data`: remove values by field id. */
export interface RemoveCustomProfileValues {
  type: 'remove_custom_profile_values';
  actorId: number;
  fieldIds: number[];
}

export type CustomProfileFieldCommand =
  | CreateCustomProfileField
  | UpdateCustomProfileField
  | DeleteCustomProfileField
  | ReorderCustomProfileFields
  | SetCustomProfileValues
  | RemoveCustomProfileValues;

/** Replies of the commands above. */
export interface CustomProfileFieldReplies {
  create_custom_profile_field: { id: number };
  update_custom_profile_field: Record<string, never>;
  delete_custom_profile_field: Record<string, never>;
  reorder_custom_profile_fields: Record<string, never>;
  set_custom_profile_values: Record<string, never>;
  remove_custom_profile_values: Record<string, never>;
}

const bad = Errors.badRequest;

/**
 * The acting user when active and an administrator (Zulip's `require_realm_admin`); the API
 * contract answers non-administrators with `Insufficient permission`.
 */
const requireAdmin = (state: RealmState, actorId: number): Result<User> => requireRealmAdmin(state.users.get(actorId), Errors.insufficientPermission);

/** `display_in_profile_summary_limit_reached`: two other fields already shown in the summary. */
function summaryLimitReached(state: RealmState, exceptId: number | null): boolean {
  let n = 0;
  for (const f of state.profileFields.fields.values()) if (f.displayInProfileSummary && f.id !== exceptId) n++;
  return n >= MAX_SUMMARY_FIELDS;
}

function nameTaken(state: RealmState, name: string, exceptId: number | null): boolean {
  for (const f of state.profileFields.fields.values()) if (f.name === name && f.id !== exceptId) return true;
  return false;
}

/** `orjson.dumps(field_data or {})` for SELECT and EXTERNAL_ACCOUNT fields; `""` otherwise. */
function encodeFieldData(type: number, data: Record<string, unknown>): string {
  return type === FieldType.SELECT || type === FieldType.EXTERNAL_ACCOUNT ? JSON.stringify(data) : '';
}

/** The event after applying `records` to a scratch view of the fields (state itself is untouched). */
function eventAfter(state: RealmState, records: CustomProfileFieldRecord[]): RealmEvent {
  const fields = new Map([...state.profileFields.fields].map(([id, f]) => [id, { ...f }]));
  const scratch = { ...state, profileFields: { fields, values: new Map(), nextId: state.profileFields.nextId } } as RealmState;
  for (const r of records) evolveProfileFields(scratch, r);
  return fieldsEvent(scratch);
}

function definitionChange<R>(state: RealmState, record: CustomProfileFieldRecord, reply: R): Result<Decision<R>> {
  return ok({ records: [record], events: [eventAfter(state, [record])], reply });
}

/** Checks shared by create and update after the summary limit; returns the error or null. */
function checkDefinition(state: RealmState, type: number, input: FieldDefinitionInput, exceptId: number | null) {
  const e = checkFieldDefinition(input.name, input.hint, type, input.fieldData);
  if (e !== null) return bad(e);
  if (input.displayInProfileSummary && (type === FieldType.LONG_TEXT || type === FieldType.USER)) {
    return bad('Field type not supported for display in profile summary.');
  }
  return null;
}

export const createCustomProfileField: Handler<CreateCustomProfileField, CustomProfileFieldReplies['create_custom_profile_field']> = (state, cmd) => {
  const admin = requireAdmin(state, cmd.actorId);
  if (!admin.ok) return admin;
  if (cmd.displayInProfileSummary && summaryLimitReached(state, null)) {
    return fail(bad(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`));
  }
  const e = checkDefinition(state, cmd.fieldType, cmd, null);
  if (e !== null) return fail(e);
  let { name, hint, fieldData } = cmd;
  if (isDefaultExternal(cmd.fieldType, fieldData)) {
    const subtype = fieldData.subtype as string;
    name = DEFAULT_EXTERNAL_ACCOUNTS[subtype]!.name;
    hint = '';
    fieldData = { subtype };
  }
  if (nameTaken(state, name, null)) return fail(bad('A field with that label already exists.'));
  const id = state.profileFields.nextId;
  const field: CustomProfileField = {
    id,
    name,
    hint,
    type: cmd.fieldType,
    fieldData: encodeFieldData(cmd.fieldType, fieldData),
    order: id,
    displayInProfileSummary: cmd.displayInProfileSummary,
    required: cmd.required,
    editableByUser: cmd.editableByUser,
  };
  return definitionChange(state, { type: 'custom_profile_field_created', v: 1, field }, { id });
};

/** Deep equality of JSON values (for `update_only_display_in_profile_summary`). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const updateCustomProfileField: Handler<UpdateCustomProfileField, Record<string, never>> = (state, cmd) => {
  const admin = requireAdmin(state, cmd.actorId);
  if (!admin.ok) return admin;
  const field = state.profileFields.fields.get(cmd.fieldId);
  if (field === undefined) return fail(bad(`Field id ${cmd.fieldId} not found.`));
  if (cmd.displayInProfileSummary && summaryLimitReached(state, field.id)) {
    return fail(bad(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`));
  }
  if (field.type === FieldType.EXTERNAL_ACCOUNT) {
    const existing = JSON.parse(field.fieldData || '{}') as Record<string, unknown>;
    const onlyFlags = cmd.name === field.name && cmd.hint === field.hint && jsonEqual(cmd.fieldData, existing);
    if (isDefaultExternal(field.type, existing) && !onlyFlags) return fail(bad('Default custom field cannot be updated.'));
  }
  const e = checkDefinition(state, field.type, cmd, field.id);
  if (e !== null) return fail(e);
  if (nameTaken(state, cmd.name, field.id)) return fail(bad('A field with that label already exists.'));
  const updated: CustomProfileField = {
    ...field,
    name: cmd.name,
    hint: cmd.hint,
    fieldData: encodeFieldData(field.type, cmd.fieldData),
    displayInProfileSummary: cmd.displayInProfileSummary,
    required: cmd.required,
    editableByUser: cmd.editableByUser,
  };
  return definitionChange(state, { type: 'custom_profile_field_updated', v: 1, field: updated }, {});
};

export const deleteCustomProfileField: Handler<DeleteCustomProfileField, Record<string, never>> = (state, cmd) => {
  const admin = requireAdmin(state, cmd.actorId);
  if (!admin.ok) return admin;
  if (!state.profileFields.fields.has(cmd.fieldId)) return fail(bad(`Field id ${cmd.fieldId} not found.`));
  return definitionChange(state, { type: 'custom_profile_field_deleted', v: 1, fieldId: cmd.fieldId }, {});
};

export const reorderCustomProfileFields: Handler<ReorderCustomProfileFields, Record<string, never>> = (state, cmd) => {
  const admin = requireAdmin(state, cmd.actorId);
  if (!admin.ok) return admin;
  const mapping = new Map<number, number>();
  cmd.order.forEach((id, index) => mapping.set(id, index));
  const fields = [...state.profileFields.fields.keys()];
  if (!fields.every((id) => mapping.has(id))) return fail(bad('Invalid order mapping.'));
  const order = fields.map((id): [number, number] => [id, mapping.get(id)!]);
  return definitionChange(state, { type: 'custom_profile_fields_reordered', v: 1, order }, {});
};

/** The acting human user, active. */
function requireHuman(state: RealmState, actorId: number): Result<User> {
  const user = state.users.get(actorId);
  if (user === undefined || !user.isActive) return fail(Errors.noSuchUser());
  if (user.isBot) return fail(Errors.noBots());
  return ok(user);
}

/** A field the actor may change, or the error (`Field id N not found.`, not editable). */
function editableField(state: RealmState, user: User, fieldId: number): Result<CustomProfileField> {
  const field = state.profileFields.fields.get(fieldId);
  if (field === undefined) return fail(bad(`Field id ${fieldId} not found.`));
  if (!field.editableByUser && !isRealmAdmin(user)) {
    return fail(bad('You are not allowed to change this field. Contact an administrator to update it.'));
  }
  return ok(field);
}

/** One `realm_user` update event per changed value, to every active user. */
function valueEvents(state: RealmState, record: CustomProfileValuesChanged): RealmEvent[] {
  const userIds = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  return record.changes.map((c) => {
    const data: { id: number; value: string | null; rendered_value?: string } = { id: c.fieldId, value: c.value };
    if (c.renderedValue) data.rendered_value = c.renderedValue;
    return { userIds, payload: { type: 'realm_user', op: 'update', person: { user_id: record.userId, custom_profile_field: data } } };
  });
}

function valuesDecision(state: RealmState, record: CustomProfileValuesChanged): Result<Decision<Record<string, never>>> {
  if (record.changes.length === 0) return ok({ records: [], events: [], reply: {} });
  return ok({ records: [record], events: valueEvents(state, record), reply: {} });
}

export const setCustomProfileValues: Handler<SetCustomProfileValues, Record<string, never>> = (state, cmd) => {
  const user = requireHuman(state, cmd.actorId);
  if (!user.ok) return user;
  const validated: Array<{ field: CustomProfileField; value: string }> = [];
  for (const item of cmd.data) {
    const field = editableField(state, user.value, item.id);
    if (!field.ok) return field;
    const checked = checkFieldValue(state, field.value, item.value);
    if (!checked.ok) return fail(bad(checked.msg));
    validated.push({ field: field.value, value: checked.value });
  }
  const current = new Map([...(state.profileFields.values.get(user.value.id) ?? [])].map(([id, v]) => [id, v.value]));
  const record: CustomProfileValuesChanged = { type: 'custom_profile_values_changed', v: 1, userId: user.value.id, changes: [] };
  for (const { field, value } of validated) {
    if (current.get(field.id) === value) continue;
    current.set(field.id, value);
    record.changes.push(isRenderable(field.type) ? { fieldId: field.id, value, renderedValue: value === '' ? '' : renderMarkdown(value) } : { fieldId: field.id, value });
  }
  return valuesDecision(state, record);
};

export const removeCustomProfileValues: Handler<RemoveCustomProfileValues, Record<string, never>> = (state, cmd) => {
  const user = requireHuman(state, cmd.actorId);
  if (!user.ok) return user;
  const present = new Set(state.profileFields.values.get(user.value.id)?.keys() ?? []);
  const record: CustomProfileValuesChanged = { type: 'custom_profile_values_changed', v: 1, userId: user.value.id, changes: [] };
  for (const fieldId of cmd.fieldIds) {
    const field = editableField(state, user.value, fieldId);
    if (!field.ok) return field;
    if (!present.delete(fieldId)) continue; // no value: silent no-op
    record.changes.push({ fieldId, value: null });
  }
  return valuesDecision(state, record);
};
