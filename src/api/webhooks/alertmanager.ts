/**
 * Prometheus Alertmanager (Zulip's zerver/webhooks/alertmanager/view.py): alerts grouped by the
 * `name` label (query parameter `name`, default `instance`; topic), described by the `desc`
 * label (default `alertname`), one message per topic and status, each alert linked to its graph.
 */
import { Errors } from '../../errors.js';
import { arr, obj, str, type Integration, type WebhookMessage } from './framework.js';

const NAME = 'Alertmanager';

export const alertmanager: Integration = {
  name: NAME,
  handle(request) {
    const payload = obj(NAME, request.json());
    const nameField = request.params.get('name') ?? 'instance';
    const descField = request.params.get('desc') ?? 'alertname';
    const topics = new Map<string, { firing: string[]; resolved: string[] }>();
    for (const raw of arr(NAME, payload.alerts)) {
      const alert = obj(NAME, raw);
      const labels = (alert.labels ?? {}) as Record<string, unknown>;
      const annotations = (alert.annotations ?? {}) as Record<string, unknown>;
      const name = str(NAME, labels[nameField] ?? annotations[nameField] ?? '(unknown)');
      const desc = str(NAME, labels[descField] ?? annotations[descField] ?? `<missing field: ${descField}>`);
      const url = str(NAME, alert.generatorURL).replace('tab=1', 'tab=0');
      const status = str(NAME, alert.status);
      if (status !== 'firing' && status !== 'resolved') throw Errors.anomalousWebhookPayload(NAME);
      if (!topics.has(name)) topics.set(name, { firing: [], resolved: [] });
      topics.get(name)![status].push(`${desc} ([graph](${url}))`);
    }
    const messages: WebhookMessage[] = [];
    for (const [topic, statuses] of topics) {
      for (const status of ['firing', 'resolved'] as const) {
        const lines = statuses[status];
        if (lines.length === 0) continue;
        const [icon, title] = status === 'firing' ? [':alert:', 'FIRING'] : [':squared_ok:', 'Resolved'];
        const body = lines.length === 1 ? `${icon} **${title}** ${lines[0]}` : `${icon} **${title}**\n${lines.map((m) => `* ${m}`).join('\n')}`;
        messages.push({ topic, body });
      }
    }
    return messages;
  },
};
