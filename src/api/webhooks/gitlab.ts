/**
 * GitLab (Zulip's zerver/webhooks/gitlab/view.py): the event comes in the `X-Gitlab-Event`
 * header. Supported: `Push Hook` (commits; deleted branch), `Issue Hook` (open → "created",
 * close, reopen) and `Merge Request Hook` (open → "created" with branches, close, merge,
 * reopen). Other events or actions: `UnsupportedWebhookEventTypeError` (HTTP 200) named like
 * Zulip's event keys (`Issue Hook update`). Topics: `{project} / {branch}`,
 * `{project} / issue #{iid} {title}`, `{project} / MR #{iid} {title}`.
 */
import { Errors } from '../../errors.js';
import { arr, obj, str, type Integration, type WebhookMessage, type WebhookRequest } from './framework.js';
import { branchTopic, itemTopic, pullRequestMessage, pushMessage, type Commit } from './git.js';

const NAME = 'GitLab';
type Payload = Record<string, unknown>;
const EMPTY_SHA = '0000000000000000000000000000000000000000';

const project = (p: Payload) => obj(NAME, p.project);
const repoName = (p: Payload) => str(NAME, project(p).name);
const userName = (p: Payload) => str(NAME, obj(NAME, p.user).name);
const description = (v: unknown) => (typeof v === 'string' ? v.replace(/<!--.*?-->/gs, '').trimEnd() : null);

function push(p: Payload): WebhookMessage {
  const branch = str(NAME, p.ref).replace(/^refs\/heads\//, '');
  const user = str(NAME, p.user_name);
  const topic = branchTopic(repoName(p), branch);
  if (p.after === EMPTY_SHA) return { topic, body: `${user} deleted branch ${branch}.`, eventType: 'Push Hook' };
  const compareUrl = `${str(NAME, project(p).web_url)}/compare/${str(NAME, p.before)}...${str(NAME, p.after)}`;
  const commits: Commit[] = arr(NAME, p.commits).map((raw) => {
    const c = obj(NAME, raw);
    return { name: str(NAME, obj(NAME, c.author).name), sha: str(NAME, c.id), url: str(NAME, c.url), message: str(NAME, c.message) };
  });
  return { topic, body: pushMessage(user, compareUrl, branch, commits), eventType: 'Push Hook' };
}

function issue(p: Payload, includeTitle: boolean): WebhookMessage {
  const attrs = obj(NAME, p.object_attributes);
  const action = str(NAME, attrs.action);
  const verbs: Record<string, string> = { open: 'created', close: 'closed', reopen: 'reopened' };
  if (verbs[action] === undefined) throw Errors.unsupportedWebhookEvent(NAME, `Issue Hook ${action}`);
  const iid = Number(attrs.iid);
  const title = str(NAME, attrs.title);
  const body = pullRequestMessage({
    user: userName(p), action: verbs[action]!, url: str(NAME, attrs.url), number: iid, type: 'issue',
    message: action === 'open' ? description(attrs.description) : null, title: includeTitle ? title : null,
  });
  return { topic: itemTopic(repoName(p), 'issue', iid, title), body, eventType: `Issue Hook ${action}` };
}

function mergeRequest(p: Payload, includeTitle: boolean): WebhookMessage {
  const attrs = obj(NAME, p.object_attributes);
  const action = str(NAME, attrs.action);
  const verbs: Record<string, string> = { open: 'created', close: 'closed', merge: 'merged', reopen: 'reopened' };
  if (verbs[action] === undefined) throw Errors.unsupportedWebhookEvent(NAME, `Merge Request Hook ${action}`);
  const iid = Number(attrs.iid);
  const title = str(NAME, attrs.title);
  const opened = action === 'open';
  const body = pullRequestMessage({
    user: userName(p), action: verbs[action]!, url: str(NAME, attrs.url), number: iid, type: 'MR',
    ...(opened && { targetBranch: str(NAME, attrs.source_branch), baseBranch: str(NAME, attrs.target_branch), message: description(attrs.description) }),
    title: includeTitle ? title : null,
  });
  return { topic: itemTopic(repoName(p), 'MR', iid, title), body, eventType: `Merge Request Hook ${action}` };
}

export const gitlab: Integration = {
  name: NAME,
  handle(request: WebhookRequest) {
    const event = request.headers['x-gitlab-event'];
    if (event === undefined) throw Errors.missingHttpEventHeader(NAME, 'X-GitLab-Event');
    const includeTitle = request.params.has('topic');
    switch (event) {
      case 'Push Hook':
        return [push(obj(NAME, request.json()))];
      case 'Issue Hook':
      case 'Confidential Issue Hook':
        return [issue(obj(NAME, request.json()), includeTitle)];
      case 'Merge Request Hook':
        return [mergeRequest(obj(NAME, request.json()), includeTitle)];
      default:
        throw Errors.unsupportedWebhookEvent(NAME, event);
    }
  },
};
