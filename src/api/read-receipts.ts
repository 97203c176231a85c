/**
 * `GET /messages/{message_id}/read_receipts` (https://zulip.com/api/get-read-receipts; Zulip's
 * zerver/views/read_receipts.py) → `{user_ids: [...]}`. The rules are in
 * `realm/queries/read-receipts.ts`; like every message read it answers only with durable state
 * (`api/durable-read.ts`) and treats a message beyond the durable watermark as unknown.
 */
import { Errors } from '../errors.js';
import { readReceiptUserIds } from '../realm/queries/read-receipts.js';
import { durableRead } from './durable-read.js';
import { defineEndpoint } from './define-endpoint.js';

/** `GET /messages/{message_id}/read_receipts` (Zulip's `read_receipts`). */
export const getReadReceipts = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) =>
    durableRead(realm, () => {
      if (path.message_id > realm.durableMessageId) return Errors.invalidMessage();
      const ids = readReceiptUserIds(realm.state, user, path.message_id);
      return ids.ok ? { user_ids: ids.value } : ids.error;
    }),
});
