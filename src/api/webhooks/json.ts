/**
 * The generic JSON integration (Zulip's zerver/webhooks/json/view.py `api_json_webhook`): the
 * payload, pretty-printed with a 2-space indent, in a ```json block; topic "JSON".
 */
import type { Integration } from './framework.js';

/** Python's `json.dumps(payload, indent=2)`: non-ASCII escaped as `\uXXXX`. */
export function pythonJsonDumps(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const json: Integration = {
  name: 'JSON',
  handle(request) {
    return [{ topic: 'JSON', body: `\`\`\`json\n${pythonJsonDumps(request.json())}\n\`\`\`` }];
  },
};
