/**
 * `GET /messages/{message_id}/history` (https://zulip.com/api/get-message-history): the message's
 * snapshots oldest first. Realm `allow_edit_history` false → "Message edit history is disabled in
 * this organization" (checked first); inaccessible → "Invalid message(s)". `allow_empty_topic_name`
 * (JSON bool, default false) controls whether the empty topic is shown as the realm's display name.
 */
import { Errors } from '../errors.js';
import { canAccessMessage } from '../domain/access.js';
import { historySnapshots } from '../domain/message-edits.js';
import { highlightHtmlDifferences } from '../domain/html-diff.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

export const messageHistoryEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/messages/{message_id}/history',
    auth: 'user',
    dialect: 'typed',
    params: { allow_empty_topic_name: P.bool({ default: false }) },
    handler: ({ realm, user, params, path }) => {
      const state = realm!.state;
      if (!state.settings.allowEditHistory) return Errors.badRequest('Message edit history is disabled in this organization');
      const id = path.message_id!;
      if (!canAccessMessage(state, user!, id)) return Errors.invalidMessage();
      const body = realm!.messageBody(id);
      if (body === undefined) return Errors.invalidMessage();
      return { message_history: historySnapshots(state, id, body, params.allow_empty_topic_name, highlightHtmlDifferences) };
    },
  }),
];
