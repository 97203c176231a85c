/**
 * `POST /api/v1/external/{integration}` (https://zulip.com/api/incoming-webhooks-overview): looks
 * up the integration, authenticates (framework.ts `webhookPrincipal`), runs it, filters by
 * `only_events` / `exclude_events` and sends its messages (`sendWebhookMessages`). Answers
 * `{"result":"success"}`; an unknown integration is 404. Not served under `/json`.
 */
import { Errors, ZulipError } from '../../errors.js';
import { defineEndpoint } from '../define-endpoint.js';
import { P } from '../params.js';
import { eventWanted, sendWebhookMessages, stringListParam, webhookPrincipal, type Integration, type WebhookRequest } from './framework.js';
import { alertmanager } from './alertmanager.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { grafana } from './grafana.js';
import { json } from './json.js';
import { slackIncoming } from './slack-incoming.js';

/** Integrations by URL name (Zulip's zerver/lib/integrations.py WEBHOOK_INTEGRATIONS subset). */
export const INTEGRATIONS: Readonly<Record<string, Integration>> = {
  alertmanager,
  github,
  gitlab,
  grafana,
  json,
  slack_incoming: slackIncoming,
};

/** `POST /external/{integration}`. */
export const incomingWebhook = defineEndpoint({
  auth: 'none',
  web: false,
  pathParams: { integration: 'string' },
  params: {
    api_key: P.string(),
    stream: P.string(),
    topic: P.string(),
    only_events: P.string(),
    exclude_events: P.string(),
    // Integration options (Alertmanager's `name` / `desc`, Slack's form `payload`).
    name: P.string(),
    desc: P.string(),
    payload: P.string(),
  },
  handler: async ({ realm, params, path, headers, rawBody }) => {
    const integration = Object.hasOwn(INTEGRATIONS, path.integration) ? INTEGRATIONS[path.integration] : undefined;
    if (integration === undefined) return Errors.notFound();
    const user = webhookPrincipal(realm, params.api_key, headers.authorization);
    if (user instanceof ZulipError) return user;
    const onlyEvents = stringListParam('only_events', params.only_events);
    const excludeEvents = stringListParam('exclude_events', params.exclude_events);
    const text = rawBody.toString('utf8');
    const values = new Map<string, string>();
    for (const key of ['topic', 'name', 'desc', 'payload'] as const) if (params[key] !== undefined) values.set(key, params[key]);
    const request: WebhookRequest = {
      rawBody: text,
      headers,
      params: values,
      json() {
        try {
          return JSON.parse(text);
        } catch {
          throw Errors.malformedJson();
        }
      },
    };
    const messages = integration.handle(request).filter((m) => eventWanted(m.eventType, onlyEvents, excludeEvents));
    const error = await sendWebhookMessages(realm!, user, integration, messages, {
      ...(params.stream !== undefined && { stream: params.stream }),
      ...(params.topic !== undefined && { topic: params.topic }),
    });
    return error ?? {};
  },
});
