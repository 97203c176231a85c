/**
 * Message texts shared by the Git integrations (Zulip's zerver/lib/webhooks/git.py:
 * `get_push_commits_event_message`, `get_pull_request_event_message`, `get_issue_event_message`,
 * `get_all_committers`, `get_commits_content`, and the topic templates).
 */

/** `{repo} / {branch}` */
export const branchTopic = (repo: string, branch: string) => `${repo} / ${branch}`;
/** `{repo} / {type} #{id} {title}` */
export const itemTopic = (repo: string, type: string, id: number, title: string) => `${repo} / ${type} #${id} ${title}`;

/** One pushed commit. */
export interface Commit {
  /** Committer shown in "Commits by" (a username, else the author's name). */
  name: string;
  sha: string;
  url: string;
  message: string;
}

const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;

/** `get_all_committers`: by commit count, ties alphabetically; beyond 3, "others". */
function committers(commits: readonly Commit[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const items = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length <= COMMITTERS_LIMIT) return items;
  const others = items.slice(COMMITTERS_LIMIT).reduce((n, [, c]) => n + c, 0);
  return [...items.slice(0, COMMITTERS_LIMIT), ['others', others]];
}

/** `get_commits_content`: one row per commit (first 20), then "[and N more commit(s)]". */
function commitsContent(commits: readonly Commit[]): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) out += `* ${c.message.split('\n')[0]} ([${c.sha.slice(0, 11)}](${c.url}))\n`;
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  return out.trimEnd();
}

/** `get_push_commits_event_message`. */
export function pushMessage(user: string, compareUrl: string | null, branch: string, commits: readonly Commit[], opts: { deleted?: boolean; forced?: boolean } = {}): string {
  if (commits.length === 0 && opts.deleted === true) return `${user} [deleted](${compareUrl}) the branch ${branch}.`;
  const pushType = opts.forced === true ? 'force pushed' : 'pushed';
  if (commits.length === 0) {
    return compareUrl !== null ? `${user} [${pushType}](${compareUrl}) the branch ${branch}.` : `${user} ${pushType} the branch ${branch}.`;
  }
  const count = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const pushed = compareUrl !== null ? `[${pushType}](${compareUrl}) ${count}` : `${pushType} ${count}`;
  const base = `${user} ${pushed} to branch ${branch}.`;
  const items = committers(commits);
  if (items.length === 1 && items[0]![0] === user) return `${base}\n\n${commitsContent(commits)}`.trimEnd();
  let details = `${items[0]![0]} (${items[0]![1]})`;
  for (const [name, n] of items.slice(1, -1)) details = `${details}, ${name} (${n})`;
  if (items.length > 1) details = `${details} and ${items.at(-1)![0]} (${items.at(-1)![1]})`;
  return `${base} Commits by ${details}.\n\n${commitsContent(commits)}`.trimEnd();
}

/** Arguments of {@link pullRequestMessage} (`get_pull_request_event_message`). */
export interface ItemMessage {
  user: string;
  action: string;
  url: string;
  number?: number;
  /** Head and base branch ("from `head` to `base`"). */
  targetBranch?: string | null;
  baseBranch?: string | null;
  /** Quoted below the line. */
  message?: string | null;
  assignee?: string | null;
  /** `PR`, `MR` or `issue`. */
  type: string;
  title?: string | null;
}

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]$/;

/** `get_pull_request_event_message` (issues: `type: 'issue'`). */
export function pullRequestMessage(m: ItemMessage): string {
  const action = ({ approval: 'added their approval for', unapproval: 'removed their approval for' } as Record<string, string>)[m.action] ?? m.action;
  const id = m.number !== undefined ? ` #${m.number}` : '';
  const title = m.title != null ? ` ${m.title}` : '';
  let main = `${m.user} ${action} [${m.type}${id}${title}](${m.url})`;
  if (m.targetBranch && m.baseBranch) main = `${main} from \`${m.targetBranch}\` to \`${m.baseBranch}\``;
  if (m.assignee) main = `${main} (assigned to ${m.assignee})`;
  const punctuation = m.message ? ':' : '.';
  if (m.assignee || (m.targetBranch && m.baseBranch) || m.title == null || !PUNCTUATION.test(m.title)) main = `${main}${punctuation}`;
  if (m.message) main += `\n\n~~~ quote\n${m.message}\n~~~`;
  return main.trimEnd();
}
