/**
 * `GET /messages/matches_narrow` (OpenAPI `check-messages-match-narrow`; Zulip's
 * `messages_in_narrow_backend` at feature level 417): which of `msg_ids` match `narrow`.
 *
 * Parameters (typed dialect): `msg_ids` (JSON list of integers, required), `narrow` (JSON list
 * of narrow terms, required; parsed as `GET /messages` parses it, `narrow-parse.ts`). As Zulip,
 * the first `topic` term equal to the empty-topic display name means the empty topic; there is
 * no `with` handling (an unknown operator here).
 *
 * Only messages the viewer received count (Zulip's `need_user_message=True`): a UserMessage row,
 * in a channel that is public to them or that they are subscribed to, or a direct message — the
 * `GET /messages` row rule, without history mode. Unknown, deleted and inaccessible ids are left
 * out silently, as are ids that do not match and messages not yet durable.
 *
 * Response: `{messages: {"<id>": {match_content, match_subject}}}`: for a `search` narrow, the
 * rendered content and the HTML-escaped topic with the query words in
 * `<span class="highlight">…</span>` (as `GET /messages`); otherwise the rendered content and
 * the HTML-escaped topic unchanged. Narrow errors are those of `GET /messages` (BAD_NARROW).
 */
import Type from 'typebox';
import { Errors, ZulipError } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { compileNarrow, parseNarrow } from '../domain/narrow.js';
import { messageLookupIndex } from '../domain/recipient-index.js';
import { escapeTopicHtml, highlightHtml, highlightTopic } from '../domain/message-search.js';
import { Selection } from '../realm/queries/message-list.js';

export const matchesNarrowEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/messages/matches_narrow',
    auth: 'user',
    dialect: 'typed',
    params: {
      msg_ids: P.json(Type.Array(Type.Integer())),
      narrow: P.string(),
    },
    handler: ({ realm, user, params }) => {
      if (params.msg_ids === undefined) return Errors.missingArgument('msg_ids');
      if (params.narrow === undefined) return Errors.missingArgument('narrow');
      const parsed = parseNarrow(params.narrow);
      if (parsed instanceof ZulipError) return parsed;
      const state = realm!.state;
      const terms = (parsed ?? []).map((t) => ({ ...t }));
      const topicTerm = terms.find((t) => t.operator === 'topic');
      if (topicTerm !== undefined && topicTerm.operand === state.settings.emptyTopicDisplayName) topicTerm.operand = '';

      const compiled = compileNarrow(state, user!, messageLookupIndex(state), terms);
      if (compiled instanceof ZulipError) return compiled;
      const readBody = (id: number) => realm!.messageBody(id);
      const selection = new Selection(state, user!, compiled, false, readBody, realm!.durableMessageId);
      const search = compiled.search;
      const messages: Record<string, { match_content: string; match_subject: string }> = {};
      const ids = [...new Set(params.msg_ids as number[])].sort((a, b) => a - b);
      for (const id of ids) {
        if (!selection.accepts(id)) continue;
        const body = readBody(id);
        if (body === undefined) continue;
        const topic = state.topics.value(state.messages.topic.get(id));
        messages[String(id)] =
          search === null
            ? { match_content: body.rendered, match_subject: escapeTopicHtml(topic) }
            : { match_content: highlightHtml(body.rendered, search), match_subject: highlightTopic(topic, search) };
      }
      return { messages };
    },
  }),
];
