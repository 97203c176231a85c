/**
 * GitHub (Zulip's zerver/webhooks/github/view.py): the event comes in the `X-GitHub-Event` header
 * (missing: `MissingHTTPEventHeaderError`). Supported: `push` (commits, deleted and new branches;
 * tags), `pull_request` (opened, synchronize, reopened, edited, closed/merged), `issues` (opened,
 * closed, reopened, edited) and `issue_comment`; `ping` answers the setup message. Other events
 * or actions: Zulip's `UnsupportedWebhookEventTypeError` (HTTP 200). Topics: `{repo} / {branch}`,
 * `{repo} / PR #{n} {title}`, `{repo} / issue #{n} {title}`; with a user-given `topic` the
 * item's title goes into the message instead (Zulip's `include_title`).
 */
import { Errors } from '../../errors.js';
import { arr, obj, str, type Integration, type WebhookMessage, type WebhookRequest } from './framework.js';
import { branchTopic, itemTopic, pullRequestMessage, pushMessage, type Commit } from './git.js';

const NAME = 'GitHub';
type Payload = Record<string, unknown>;

const sender = (p: Payload) => str(NAME, obj(NAME, p.sender).login);
const repoName = (p: Payload) => str(NAME, obj(NAME, p.repository).name);
const optionalStr = (v: unknown) => (typeof v === 'string' ? v : null);

function push(p: Payload): WebhookMessage {
  const ref = str(NAME, p.ref);
  if (ref.startsWith('refs/tags/')) {
    const tag = ref.slice('refs/tags/'.length);
    const action = p.deleted === true ? 'removed' : 'pushed';
    const text = `${sender(p)} ${action} tag ${tag}`;
    return { topic: repoName(p), body: /[!-/:-@[-`{-~]$/.test(tag) ? text : `${text}.`, eventType: 'push_tags' };
  }
  const branch = ref.replace(/^refs\/heads\//, '');
  const commits: Commit[] = arr(NAME, p.commits).map((raw) => {
    const c = obj(NAME, raw);
    const author = obj(NAME, c.author);
    return { name: optionalStr(author.username) || str(NAME, author.name), sha: str(NAME, c.id), url: str(NAME, c.url), message: str(NAME, c.message) };
  });
  const body = pushMessage(sender(p), optionalStr(p.compare), branch, commits, { deleted: p.deleted === true, forced: p.forced === true });
  return { topic: branchTopic(repoName(p), branch), body, eventType: 'push_commits' };
}

function pullRequest(p: Payload, includeTitle: boolean): WebhookMessage | null {
  const pr = obj(NAME, p.pull_request);
  const number = Number(pr.number);
  const title = str(NAME, pr.title);
  const topic = itemTopic(repoName(p), 'PR', number, title);
  const action = str(NAME, p.action);
  const base = { user: sender(p), url: str(NAME, pr.html_url), number, type: 'PR', title: includeTitle ? title : null };
  if (action === 'closed') {
    return { topic, body: pullRequestMessage({ ...base, action: pr.merged === true ? 'merged' : 'closed without merge' }), eventType: 'closed_pull_request' };
  }
  if (['opened', 'synchronize', 'reopened', 'edited'].includes(action)) {
    const changes = (p.changes ?? {}) as Payload;
    const message = 'body' in changes || action === 'opened' ? optionalStr(pr.body) : null;
    const branches = action === 'opened' ? { targetBranch: str(NAME, obj(NAME, pr.head).label), baseBranch: str(NAME, obj(NAME, pr.base).label) } : {};
    const assignee = pr.assignee ? str(NAME, obj(NAME, pr.assignee).login) : null;
    return {
      topic,
      body: pullRequestMessage({ ...base, action: action === 'synchronize' ? 'updated' : action, message, assignee, ...branches }),
      eventType: 'opened_or_update_pull_request',
    };
  }
  throw Errors.unsupportedWebhookEvent(NAME, `pull_request:${action}`);
}

function issue(p: Payload, includeTitle: boolean): WebhookMessage {
  const item = obj(NAME, p.issue);
  const number = Number(item.number);
  const title = str(NAME, item.title);
  const action = str(NAME, p.action);
  if (!['opened', 'closed', 'reopened', 'edited', 'deleted', 'transferred', 'pinned', 'unpinned', 'locked', 'unlocked'].includes(action)) {
    throw Errors.unsupportedWebhookEvent(NAME, `issues:${action}`);
  }
  const body = pullRequestMessage({ user: sender(p), action, url: str(NAME, item.html_url), number, message: optionalStr(item.body), type: 'issue', title: includeTitle ? title : null });
  return { topic: itemTopic(repoName(p), 'issue', number, title), body, eventType: 'issues' };
}

function issueComment(p: Payload, includeTitle: boolean): WebhookMessage {
  const item = obj(NAME, p.issue);
  const comment = obj(NAME, p.comment);
  const number = Number(item.number);
  const title = str(NAME, item.title);
  const action = str(NAME, p.action);
  const verb = `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${str(NAME, comment.html_url)}) on`;
  const type = item.pull_request ? 'PR' : 'issue';
  const body = pullRequestMessage({ user: sender(p), action: verb, url: str(NAME, item.html_url), number, message: str(NAME, comment.body), type, title: includeTitle ? title : null });
  return { topic: itemTopic(repoName(p), type, number, title), body, eventType: 'issue_comment' };
}

export const github: Integration = {
  name: NAME,
  handle(request: WebhookRequest) {
    const event = request.headers['x-github-event'];
    if (event === undefined) throw Errors.missingHttpEventHeader(NAME, 'X-GitHub-Event');
    const includeTitle = request.params.has('topic');
    const payload = () => obj(NAME, request.json());
    switch (event) {
      case 'ping': {
        const p = payload();
        const user = p.sender ? ` by ${sender(p)}` : '';
        return [{ topic: p.repository ? repoName(p) : 'organization', body: `GitHub webhook has been successfully configured${user}.`, eventType: 'ping' }];
      }
      case 'push':
        return [push(payload())];
      case 'pull_request': {
        const message = pullRequest(payload(), includeTitle);
        return message === null ? [] : [message];
      }
      case 'issues':
        return [issue(payload(), includeTitle)];
      case 'issue_comment':
        return [issueComment(payload(), includeTitle)];
      default:
        throw Errors.unsupportedWebhookEvent(NAME, event);
    }
  },
};
