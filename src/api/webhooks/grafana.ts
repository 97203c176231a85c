/**
 * Grafana (Zulip's zerver/webhooks/grafana/view.py `api_grafana_webhook`): Grafana 8+ alerting
 * (`alerts`, one message per alert, topic `[alertname]`) and the legacy Grafana 7 alert (topic
 * the alert's title). Event types (for `only_events`): the alert status or legacy state.
 * Times are shown with Zulip's `<time:…>` syntax (`datetime_to_global_time`).
 */
import { Errors } from '../../errors.js';
import { arr, obj, str, type Integration, type WebhookMessage } from './framework.js';

const NAME = 'Grafana';

/** Zulip's `datetime_to_global_time`: `<time:2022-08-31T05:54:04+00:00>`. */
function globalTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw Errors.anomalousWebhookPayload(NAME);
  return `<time:${date.toISOString().slice(0, 19)}+00:00>`;
}

const status = (icon: string, state: string) => `${icon} **${state}**\n\n`;

function pythonStr(value: unknown): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function unifiedAlert(raw: unknown): WebhookMessage {
  const alert = obj(NAME, raw);
  const state = str(NAME, alert.status);
  if (state !== 'firing' && state !== 'resolved') throw Errors.anomalousWebhookPayload(NAME);
  let body = state === 'firing' ? status(':alert:', 'FIRING') : status(':checkbox:', 'RESOLVED');
  const labels = obj(NAME, alert.labels ?? {});
  let topic: string;
  if (typeof labels.alertname === 'string' && labels.alertname !== '') {
    topic = `[${labels.alertname}]`;
    body += `**${labels.alertname}**\n\n`;
  } else {
    topic = `[${str(NAME, alert.fingerprint)}]`;
  }
  body += `This alert was fired at ${globalTime(str(NAME, alert.startsAt))}.`;
  const endsAt = str(NAME, alert.endsAt);
  if (endsAt !== '0001-01-01T00:00:00Z') body += `\n\nThis alert was resolved at ${globalTime(endsAt)}.`;
  if (Object.keys(labels).length > 0) body += `\n\nLabels:\n${Object.entries(labels).map(([k, v]) => `- ${k}: ${str(NAME, v)}\n`).join('')}\n`;
  const values = alert.values as Record<string, unknown> | null | undefined;
  if (values && Object.keys(values).length > 0) body += `Values:\n${Object.entries(values).map(([k, v]) => `- ${k}: ${pythonStr(v)}\n`).join('')}\n`;
  else if (typeof alert.valueString === 'string' && alert.valueString !== '') body += `Values:\n${alert.valueString}\n\n`;
  const annotations = alert.annotations as Record<string, unknown> | null | undefined;
  if (annotations && Object.keys(annotations).length > 0) body += `Annotations:\n${Object.entries(annotations).map(([k, v]) => `- ${k}: ${str(NAME, v)}\n`).join('')}`;
  if (typeof alert.generatorURL === 'string' && alert.generatorURL !== '') body += `\n[Generator](${alert.generatorURL})`;
  if (typeof alert.silenceURL === 'string' && alert.silenceURL !== '') body += `\n[Silence](${alert.silenceURL})`;
  if (typeof alert.imageURL === 'string' && alert.imageURL !== '') body += `\n[Image](${alert.imageURL})`;
  return { topic, body: `${body}\n`, eventType: state };
}

export const grafana: Integration = {
  name: NAME,
  handle(request) {
    const payload = obj(NAME, request.json());
    if ('alerts' in payload) return arr(NAME, payload.alerts).map(unifiedAlert);
    const topic = str(NAME, payload.title);
    let matches = '';
    if (Array.isArray(payload.evalMatches)) {
      for (const m of payload.evalMatches) matches += `**${str(NAME, obj(NAME, m).metric)}:** ${pythonStr(obj(NAME, m).value)}\n`;
    }
    const message = 'message' in payload ? `${str(NAME, payload.message)}\n\n` : '';
    const state = str(NAME, payload.state);
    if (!['no_data', 'paused', 'alerting', 'ok', 'pending', 'unknown'].includes(state)) throw Errors.anomalousWebhookPayload(NAME);
    const head = state === 'alerting' ? status(':alert:', 'ALERTING') : state === 'ok' ? status(':squared_ok:', 'OK') : status(':info:', state.toUpperCase());
    let body = `${head}[${str(NAME, payload.ruleName)}](${str(NAME, payload.ruleUrl)})\n\n${message}${matches}`;
    if ('imageUrl' in payload) body += `\n[Click to view visualization](${str(NAME, payload.imageUrl)})`;
    return [{ topic, body: body.trim(), eventType: state }];
  },
};
