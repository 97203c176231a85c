/**
 * Message widgets (https://zulip.com/help/create-a-poll, https://zulip.com/help/collaborative-to-do-lists;
 * Zulip's zerver/lib/widget.py `get_widget_data`, `parse_poll_extra_data`, `parse_todo_extra_data`,
 * and zerver/lib/validator.py `validate_poll_data`, `validate_todo_data`): a message whose content
 * starts with `/poll` or `/todo` gets a `widget` submessage `{widget_type, extra_data}` at send;
 * the readers' submessages on it are validated by the widget's rules. Error strings are Zulip's
 * validator messages (`poll data["key"] is not a string`...).
 */

/** `{widget_type, extra_data}` of the `widget` submessage. */
export type WidgetContent =
  | { widget_type: 'poll'; extra_data: { question: string; options: string[] } }
  | { widget_type: 'todo'; extra_data: { task_list_title: string; tasks: Array<{ task: string; desc: string }> } };

/** Zulip's list-syntax stripper: the first run of whitespace / one `-` or `*` / whitespace. */
const stripListMarker = (line: string) => line.trim().replace(/\s*[-*]?\s*/, '');

/** Python's `str.splitlines()` (the line breaks it knows). */
const splitLines = (s: string) => {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
};

const FIRST_WORD = /^\S*/;

/** Zulip's `get_widget_data`: the widget of a message's content, or null. */
export function widgetContentOf(content: string): WidgetContent | null {
  const first = FIRST_WORD.exec(content)![0]; // `content.split(/\s+/)[0]` without splitting it all
  if (!first.startsWith('/')) return null;
  const type = first.slice(1);
  if (type !== 'poll' && type !== 'todo') return null;
  const lines = splitLines(content.replace(first, ''));
  let title = '';
  if (lines.length > 0 && lines[0] !== '') title = lines.shift()!.trim();
  if (type === 'poll') {
    const options = lines.map(stripListMarker).filter((o) => o.length > 0);
    return { widget_type: 'poll', extra_data: { question: title, options } };
  }
  const tasks = lines.map(stripListMarker).filter((t) => t.length > 0).map((t) => {
    const i = t.indexOf(': ');
    return i < 0 ? { task: t.trim(), desc: '' } : { task: t.slice(0, i).trim(), desc: t.slice(i + 2).trim() };
  });
  return { widget_type: 'todo', extra_data: { task_list_title: title, tasks } };
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isInt: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const isBool: Check = (v) => typeof v === 'boolean';
const TYPE_ERRORS = new Map<Check, string>([[isString, 'is not a string'], [isInt, 'is not an integer'], [isBool, 'is not a boolean']]);

/** Zulip's `check_dict_only`: exactly these keys, each passing its check; the first error or null. */
function checkDictOnly(name: string, data: Record<string, unknown>, fields: ReadonlyArray<[string, Check, string?]>): string | null {
  for (const [key, check, invalid] of fields) {
    if (!(key in data)) return `${key} key is missing from ${name}`;
    if (!check(data[key])) return invalid ?? `${name}["${key}"] ${TYPE_ERRORS.get(check)}`;
  }
  const extra = Object.keys(data).filter((k) => !fields.some(([key]) => key === k));
  return extra.length > 0 ? `Unexpected arguments: ${extra.join(', ')}` : null;
}

/** The `type` of widget data (Zulip's `check_dict([("type", check_string)])`), or its error. */
function dataType(name: string, data: unknown): { type: string; data: Record<string, unknown> } | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return `${name} is not a dict`;
  const d = data as Record<string, unknown>;
  if (!('type' in d)) return `type key is missing from ${name}`;
  if (typeof d.type !== 'string') return `${name}["type"] is not a string`;
  return { type: d.type, data: d };
}

/** Zulip's `validate_poll_data`: null when valid, else the error message. */
export function validatePollData(pollData: unknown, isWidgetAuthor: boolean): string | null {
  const name = 'poll data';
  const typed = dataType(name, pollData);
  if (typeof typed === 'string') return typed;
  const { type, data } = typed;
  if (type === 'vote') return checkDictOnly(name, data, [['type', isString], ['key', isString], ['vote', (v) => v === 1 || v === -1, `Invalid ${name}["vote"]`]]);
  if (type === 'question') {
    if (!isWidgetAuthor) return "You can't edit a question unless you are the author.";
    return checkDictOnly(name, data, [['type', isString], ['question', isString]]);
  }
  if (type === 'new_option') return checkDictOnly(name, data, [['type', isString], ['option', isString], ['idx', isInt]]);
  return `Unknown type for poll data: ${type}`;
}

/** Zulip's `validate_todo_data`: null when valid, else the error message. */
export function validateTodoData(todoData: unknown, isWidgetAuthor: boolean): string | null {
  const name = 'todo data';
  const typed = dataType(name, todoData);
  if (typeof typed === 'string') return typed;
  const { type, data } = typed;
  if (type === 'new_task') return checkDictOnly(name, data, [['type', isString], ['key', isInt], ['task', isString], ['desc', isString], ['completed', isBool]]);
  if (type === 'strike') return checkDictOnly(name, data, [['type', isString], ['key', isString]]);
  if (type === 'new_task_list_title') {
    if (!isWidgetAuthor) return "You can't edit the task list title unless you are the author.";
    return checkDictOnly(name, data, [['type', isString], ['title', isString]]);
  }
  return `Unknown type for todo data: ${type}`;
}

/** Zulip's `get_widget_type`: the `widget_type` of a message's first `widget` submessage, or null. */
export function widgetTypeOf(submessages: ReadonlyArray<{ msgType: string; content: string }>): string | null {
  const widget = submessages.find((s) => s.msgType === 'widget');
  if (widget === undefined) return null;
  try {
    const data: unknown = JSON.parse(widget.content);
    const type = (data as { widget_type?: unknown } | null)?.widget_type;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}
