/**
 * The incoming webhook integrations parley serves at `/api/v1/external/{name}` (their code is
 * api/webhooks/), as `realm_incoming_webhook_bots` lists them (https://zulip.com/api/register-queue;
 * Zulip's zerver/lib/integrations.py `WEBHOOK_INTEGRATIONS`): URL name, display name and the
 * event types `only_events` / `exclude_events` can name (null: the integration has none).
 */

/** One integration as `realm_incoming_webhook_bots` shows it. */
export interface IncomingIntegration {
  name: string;
  display_name: string;
  all_event_types: string[] | null;
}

export const INCOMING_INTEGRATIONS: readonly IncomingIntegration[] = [
  { name: 'alertmanager', display_name: 'Prometheus Alertmanager', all_event_types: null },
  {
    name: 'github',
    display_name: 'GitHub',
    all_event_types: ['ping', 'push_commits', 'push_tags', 'opened_or_update_pull_request', 'closed_pull_request', 'issues', 'issue_comment'],
  },
  {
    name: 'gitlab',
    display_name: 'GitLab',
    all_event_types: [
      'Push Hook', 'Issue Hook open', 'Issue Hook close', 'Issue Hook reopen',
      'Merge Request Hook open', 'Merge Request Hook close', 'Merge Request Hook merge', 'Merge Request Hook reopen',
    ],
  },
  { name: 'grafana', display_name: 'Grafana', all_event_types: ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved'] },
  { name: 'json', display_name: 'JSON formatter', all_event_types: null },
  { name: 'slack_incoming', display_name: 'Slack-compatible webhook', all_event_types: null },
];
