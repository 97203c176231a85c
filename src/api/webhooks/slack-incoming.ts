/**
 * Slack-compatible incoming webhooks (Zulip's zerver/webhooks/slack_incoming/view.py
 * `api_slack_incoming_webhook`): the payload as a JSON body or as the form/query field `payload`;
 * topic from `topic`, else the payload's `channel` without its `#`/`@`, else "(no topic)".
 * Rendered: `blocks` (section text, fields, header, divider, image, context), legacy
 * `attachments` (title/link, pretext, text, fields, image, footer, `ts`), else `text` (with
 * `icon_emoji`); Slack's `<url|label>` links and `*bold*` / `_italic_` become Zulip Markdown.
 * Nothing to show: nothing is sent.
 */
import { Errors } from '../../errors.js';
import type { Integration, WebhookRequest } from './framework.js';

const NAME = 'SlackIncoming';
type Json = Record<string, any>;

const joinPieces = (pieces: readonly string[]) => pieces.map((p) => p.trim()).filter((p) => p !== '').join('\n\n');
const textOf = (block: unknown): string => (typeof block === 'object' && block !== null && typeof (block as Json).text === 'string' ? (block as Json).text : '');

function blockElement(element: Json): string {
  return element?.type === 'image' ? `[${element.alt_text ?? ''}](${element.image_url ?? ''})` : '';
}

function renderBlock(block: Json): string {
  switch (block?.type) {
    case 'context':
      return joinPieces((Array.isArray(block.elements) ? block.elements : []).map((e: Json) => (e?.type === 'image' ? blockElement(e) : textOf(e))));
    case 'divider':
      return '----';
    case 'header':
      return `## ${textOf(block.text)}`;
    case 'image':
      return `[${block.title ? textOf(block.title) : (block.alt_text ?? '')}](${block.image_url ?? ''})`;
    case 'section': {
      const pieces: string[] = [];
      if ('text' in block) pieces.push(textOf(block.text));
      if ('accessory' in block) pieces.push(blockElement(block.accessory));
      if (Array.isArray(block.fields)) {
        const fields = block.fields.map(textOf);
        if (fields.length === 1) pieces.push(fields[0]!);
        else {
          let table = '| | |\n|-|-|\n';
          const cells = fields.map((f: string) => f.replace(/\n/g, ' ').replace(/\|/g, ' '));
          for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
          pieces.push(table);
        }
      }
      return joinPieces(pieces);
    }
    default:
      return '';
  }
}

function renderAttachment(a: Json): string {
  const pieces: string[] = [];
  if (a.title) pieces.push(a.title_link ? `## [${a.title}](${a.title_link})` : `## ${a.title}`);
  if (a.pretext) pieces.push(String(a.pretext));
  if (a.text) pieces.push(String(a.text));
  if (Array.isArray(a.fields)) {
    pieces.push(
      a.fields
        .map((f: Json) => (f.title && f.value ? `*${f.title}*: ${f.value}` : f.title ? `*${f.title}*` : f.value ? String(f.value) : null))
        .filter((f: string | null) => f !== null)
        .join('\n'),
    );
  }
  if (Array.isArray(a.blocks) && a.blocks.length > 0) pieces.push(...a.blocks.map(renderBlock));
  if (a.image_url) pieces.push(`[](${a.image_url})`);
  if (a.footer) pieces.push(String(a.footer));
  if (a.ts) pieces.push(`<time:${a.ts}>`);
  return joinPieces(pieces);
}

/** Slack's `<url|label>` links → Markdown links. */
const replaceLinks = (text: string) => text.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');

/** Slack's `*bold*` and `_italic_` → Zulip's `**bold**` and `*italic*`. */
function replaceFormatting(text: string): string {
  return text
    .replace(/([^\w]|^)\*(?!\s+)([^*\n]+)(?<!\s)\*((?=[^\w])|$)/gm, '$1**$2**$3')
    .replace(/([^\w]|^)_(?!\s+)([^_\n]+)(?<!\s)_((?=[^\w])|$)/gm, '$1*$2*$3');
}

function payloadOf(request: WebhookRequest): Json {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  let value: unknown;
  if (contentType === 'application/json') value = request.json();
  else {
    const field = request.params.get('payload');
    if (field === undefined) throw Errors.missingArgument('payload');
    try {
      value = JSON.parse(field);
    } catch {
      throw Errors.malformedJson();
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw Errors.anomalousWebhookPayload(NAME);
  return value as Json;
}

export const slackIncoming: Integration = {
  name: NAME,
  handle(request) {
    const payload = payloadOf(request);
    let topic = request.params.get('topic');
    if (topic === undefined && typeof payload.channel === 'string') topic = payload.channel.replace(/^[@#]/, '');
    topic ??= '(no topic)';
    const pieces: string[] = [];
    if (Array.isArray(payload.blocks)) pieces.push(...payload.blocks.map(renderBlock));
    if (Array.isArray(payload.attachments)) pieces.push(...payload.attachments.map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === '' && payload.text) {
      if (payload.icon_emoji) body = `${payload.icon_emoji} `;
      body = `${body}${payload.text}`.trim();
    }
    if (body === '') return [];
    return [{ topic, body: replaceFormatting(replaceLinks(body).trim()) }];
  },
};
