// GitHub issues as items: an open issue carrying the ready labels (and none excluded) is a
// ready item `github:issue:<n>`; a closed one is done. What blocks it comes from GitHub's own
// dependencies and sub-issues where the API offers them, and from `depends on #n` lines in its
// body. A landing closes the issue with a comment naming the landed commit. Issue text and
// comments are anyone's: kept as data, sanitized, never obeyed here.
import { formatItem, type ItemKey } from '../../records/item.js';
import { UsageError, isRefusal, type Refusal } from '../../core/refusals.js';
import { sanitizeLine, sanitizeText } from '../../core/sanitize.js';
import {
  closeIssue,
  createIssue,
  createIssueComment,
  updateIssueComment,
  dependsOnInBody,
  listBlockedBy,
  listIssueComments,
  listOpenIssues,
  listSubIssues,
  readIssue,
  repositoryOf,
  type IssuesApi,
  type RestComment,
  type RestIssue,
} from './issues.js';
import type { RepoName } from './pull-requests.js';
import type { ForgeItemSource, ItemComment, ItemDoc, ItemLanded, ItemListing, ItemOutcome } from '../item-source.js';

export const DEFAULT_READY_LABELS = ['abcd:ready'];
// A prompt carries the newest comments, each cut: a thread of thousands is context, not a book.
const MAX_COMMENTS = 100;
const MAX_COMMENT_CHARS = 16_000;
// The first line of every comment abcd writes: its own words are neither task nor steer.
export const RESULT_COMMENT_MARK = '<!-- abcd: lane result -->';

export interface GitHubSourceOptions {
  api: IssuesApi;
  labels: readonly string[];
  exclude: readonly string[];
  priority: readonly string[];
  /** The repository pull requests land in, when the remote is on GitHub: `Closes #n` there is short. */
  landsIn?: RepoName;
}

export class GitHubIssueSource implements ForgeItemSource {
  readonly source = 'github';
  /**
   * Issues this process closed that a listing still showed open: GitHub's listings may lag a
   * write, and a lagging one must not make landed work ready again. One is forgotten once a
   * listing leaves it out; shown again after that, it was reopened.
   */
  private readonly closedHere = new Set<number>();
  /** The result comment of this run on each issue (its id): later cycles rewrite it, never add one. */
  private readonly resultComments = new Map<string, number>();

  constructor(private readonly o: GitHubSourceOptions) {}

  async list(mainTip: string): Promise<ItemListing> {
    const listed = await listOpenIssues(this.o.api, this.o.labels);
    const shown = new Set(listed.issues.map((i) => i.number));
    for (const n of this.closedHere) if (!shown.has(n)) this.closedHere.delete(n);
    const issues = listed.issues.filter((i) => !this.excludedBy(i) && !this.closedHere.has(i.number));
    const open = new Set(issues.map((i) => i.number));
    const items = await Promise.all(issues.map((i) => this.docOf(i, open)));
    return { mainTip, items, refused: [] };
  }

  async read(key: ItemKey, _mainTip: string, listed?: ItemDoc): Promise<ItemDoc | undefined> {
    const n = issueNumber(key);
    const doc = listed ?? (await this.readDoc(n));
    if (!doc) return undefined;
    const comments = await listIssueComments(this.o.api, n);
    return { ...doc, comments: comments.filter(notAbcds).slice(-MAX_COMMENTS).map(commentOf) };
  }

  async commentsSince(key: ItemKey, sinceMs: number): Promise<ItemComment[]> {
    // GitHub's `since` is in whole seconds and filters on the last edit: cut to the second so
    // every poll of a cycle asks the same URL (its ETag then answers 304), and keep only those
    // written since, so an old comment edited later is not news.
    const since = new Date(Math.floor(sinceMs / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const comments = await listIssueComments(this.o.api, issueNumber(key), since);
    return comments
      .filter(notAbcds)
      .map(commentOf)
      .filter((c) => c.at >= sinceMs - 1000);
  }

  async whyNotListed(key: ItemKey): Promise<Refusal> {
    const n = issueNumber(key);
    const where = `${this.o.api.owner}/${this.o.api.repo}`;
    const item = formatItem(key);
    const issue = await readIssueOrNone(this.o.api, n);
    if (!issue || issue.pull_request !== undefined) {
      return new UsageError(`there is no issue #${n} in ${where}: run abcd items to see the items.`, 'no-item', {
        item,
        reason: 'not-found',
      });
    }
    if (issue.state === 'closed') {
      return new UsageError(`issue #${n} in ${where} is closed, so it is done: reopen it on GitHub to build it again.`, 'no-item', {
        item,
        reason: 'closed',
      });
    }
    const excluded = this.excludedBy(issue);
    if (excluded) {
      return new UsageError(
        `issue #${n} in ${where} carries the label ${sanitizeLine(excluded, 60)}, which items.github.exclude leaves out.`,
        'no-item',
        {
          item,
          reason: 'excluded',
        },
      );
    }
    const missing = this.o.labels.filter((l) => !issue.labels.includes(l));
    return new UsageError(
      `issue #${n} in ${where} is not ready: it lacks the label${missing.length === 1 ? '' : 's'} ${missing.join(', ')} that make an issue an item; add ${missing.length === 1 ? 'it' : 'them'} on GitHub.`,
      'no-item',
      { item, reason: 'not-labelled' },
    );
  }

  landingNote(key: ItemKey): string {
    const n = issueNumber(key);
    const l = this.o.landsIn;
    const same = l && l.owner.toLowerCase() === this.o.api.owner.toLowerCase() && l.repo.toLowerCase() === this.o.api.repo.toLowerCase();
    return `Closes ${same ? '' : `${this.o.api.owner}/${this.o.api.repo}`}#${n}`;
  }

  async markDone(key: ItemKey, landed: ItemLanded): Promise<{ warning?: string }> {
    const n = issueNumber(key);
    const via = landed.pullRequest ? ` through pull request #${landed.pullRequest.number}` : '';
    const run = landed.runId ? ` (abcd lane run ${landed.runId})` : '';
    try {
      await this.writeResult(n, landed.runId, `Landed on \`${landed.main}\` in ${landed.commit}${via}${run}.`);
      await closeIssue(this.o.api, n);
      this.closedHere.add(n);
      return {};
    } catch (e) {
      if (!isRefusal(e)) throw e;
      // The work is on main either way; an issue left open is built again, never lost.
      return { warning: `landed, but issue #${n} could not be closed: ${e.message}` };
    }
  }

  /**
   * `abcd items add --github`: a new issue with the ready labels, so it is an item at once; what
   * it waits on goes in a `Depends on #n` line, the form this source reads back.
   */
  async openItem(i: { title: string; body: string; dependsOn: readonly number[] }): Promise<{ key: ItemKey; url?: string }> {
    const deps = i.dependsOn.length ? `${i.body === '' ? '' : '\n\n'}Depends on ${i.dependsOn.map((n) => `#${n}`).join(', ')}\n` : '';
    const issue = await createIssue(this.o.api, { title: i.title, body: `${i.body.replace(/\s+$/, '')}${deps}`, labels: this.o.labels });
    return { key: issueKey(issue.number), ...(issue.html_url ? { url: issue.html_url } : {}) };
  }

  /**
   * `abcd items close github:issue:<n>`: closes it as completed with a comment saying how; false
   * when it was closed already. The comment names no one: the person's address is not GitHub's to show.
   */
  async closeItem(key: ItemKey): Promise<boolean> {
    const n = issueNumber(key);
    const issue = await readIssueOrNone(this.o.api, n);
    if (!issue || issue.pull_request !== undefined) throw await this.whyNotListed(key);
    if (issue.state === 'closed') return false;
    await createIssueComment(this.o.api, n, 'Closed as done with `abcd items close`.');
    await closeIssue(this.o.api, n);
    return true;
  }

  async reportOutcome(key: ItemKey, o: ItemOutcome): Promise<{ warning?: string }> {
    const n = issueNumber(key);
    const lines = [
      `abcd lane run ${o.runId}: **${o.outcome}**${o.code ? ` (${o.code})` : ''} after ${Math.round(o.durationMs / 1000)}s` +
        `${o.usage ? `, ${o.usage} tokens` : ''}.`,
      ...(o.reason ? ['', sanitizeLine(o.reason, 480)] : []),
      '',
      ...(o.outcome === 'needs-review' && o.review
        ? [
            `It changes protected paths, so it waits for the person: ${o.review.paths.map((p) => `\`${sanitizeLine(p, 200).replace(/`/g, "'")}\``).join(', ')}.`,
            `The person reviews it with \`abcd review ${formatItem(key)}\` and lands it with \`abcd land ${formatItem(key)} --approve ${o.runId}\`.`,
          ]
        : [`A comment here by the owner, a member or a collaborator steers the next cycle; \`abcd build ${formatItem(key)}\` retries.`]),
    ];
    try {
      await this.writeResult(n, o.runId, lines.join('\n'));
      return {};
    } catch (e) {
      if (!isRefusal(e)) throw e;
      return { warning: `the result could not be written on issue #${n}: ${e.message}` };
    }
  }

  /** The run's one result comment on the issue: created by its first report, rewritten in place after. */
  private async writeResult(n: number, runId: string | undefined, text: string): Promise<void> {
    const body = `${RESULT_COMMENT_MARK}\n${text}`;
    const key = `${runId ?? ''}#${n}`;
    const id = this.resultComments.get(key);
    if (id !== undefined) {
      await updateIssueComment(this.o.api, id, body);
      return;
    }
    const made = await createIssueComment(this.o.api, n, body);
    this.resultComments.set(key, made.id);
  }

  private excludedBy(i: RestIssue): string | undefined {
    return this.o.exclude.find((l) => i.labels.includes(l));
  }

  private async readDoc(n: number): Promise<ItemDoc | undefined> {
    const issue = await readIssueOrNone(this.o.api, n);
    if (!issue || issue.pull_request !== undefined) return undefined;
    return this.docOf(issue, new Set());
  }

  private async docOf(i: RestIssue, open: ReadonlySet<number>): Promise<ItemDoc> {
    const at = i.created_at ? Date.parse(i.created_at) : NaN;
    const rank = this.o.priority.findIndex((l) => i.labels.includes(l));
    return {
      key: issueKey(i.number),
      title: i.title,
      status: i.state === 'closed' ? 'done' : 'ready',
      dependsOn: i.state === 'closed' ? [] : await this.blockersOf(i, open),
      body: i.body ?? '',
      path: i.html_url ?? `${this.o.api.owner}/${this.o.api.repo}#${i.number}`,
      labels: i.labels,
      ...(Number.isFinite(at) ? { addedAt: at } : {}),
      ...(rank >= 0 ? { labelRank: rank } : {}),
    };
  }

  /**
   * The open issues this one waits on, as keys. Each source costs a call only when the issue
   * says it has something there: GitHub's summary counts open blockers and sub-issues; a body
   * line names an issue, whose state is read unless the listing already shows it open.
   */
  private async blockersOf(i: RestIssue, open: ReadonlySet<number>): Promise<string[]> {
    const api = this.o.api;
    const keys = new Set<string>();
    if ((i.issue_dependencies_summary?.blocked_by ?? 0) > 0) {
      for (const b of (await listBlockedBy(api, i.number)) ?? []) if (b.state === 'open') keys.add(this.keyOf(b));
    }
    const sub = i.sub_issues_summary;
    if (sub && sub.total > sub.completed) {
      for (const s of (await listSubIssues(api, i.number)) ?? []) if (s.state === 'open') keys.add(this.keyOf(s));
    }
    for (const n of dependsOnInBody(i.body)) {
      if (n === i.number) continue;
      if (open.has(n)) keys.add(formatItem(issueKey(n)));
      else {
        const dep = await readIssueOrNone(api, n);
        // An issue that is not there cannot be waited on; one that is open, listed or not, is.
        if (dep?.state === 'open') keys.add(formatItem(issueKey(n)));
      }
    }
    return [...keys].sort();
  }

  /** An issue of this repository is github:issue:<n>; one of another is named so it matches no item here. */
  private keyOf(i: RestIssue): string {
    const r = repositoryOf(i);
    const api = this.o.api;
    if (!r || (r.owner.toLowerCase() === api.owner.toLowerCase() && r.repo.toLowerCase() === api.repo.toLowerCase()))
      return formatItem(issueKey(i.number));
    const part = `${r.owner}.${r.repo}`.toLowerCase().replace(/[^a-z0-9._-]/g, '-');
    return `github:issue:${part}.${i.number}`;
  }
}

export function issueKey(n: number): ItemKey {
  return { source: 'github', kind: 'issue', id: String(n) };
}

/** The issue number of a `github:issue:<n>` key; any other key of this source is a usage error. */
export function issueNumber(key: ItemKey): number {
  if (key.kind === 'issue' && /^[1-9]\d{0,8}$/.test(key.id)) return Number(key.id);
  throw new UsageError(`${formatItem(key)} is no GitHub issue key: write github:issue:<number>, e.g. github:issue:123.`, 'item-source', {
    item: formatItem(key),
    source: 'github',
    reason: 'bad-key',
  });
}

async function readIssueOrNone(api: IssuesApi, n: number): Promise<RestIssue | undefined> {
  try {
    return await readIssue(api, n);
  } catch (e) {
    if (isRefusal(e) && e.code === 'forge-rejected' && e.data.reason === 'not-found') return undefined;
    throw e;
  }
}

/** A comment abcd wrote (under a user token it shows as the person's own) is no one's instruction. */
function notAbcds(c: RestComment): boolean {
  return !(c.body ?? '').startsWith(RESULT_COMMENT_MARK);
}

function commentOf(c: RestComment): ItemComment {
  const login = c.user?.login ?? 'ghost';
  const text = sanitizeText(c.body ?? '');
  return {
    id: c.id,
    author: sanitizeLine(login, 100),
    association: sanitizeLine(c.author_association, 40),
    bot: c.user?.type === 'Bot' || login.endsWith('[bot]'),
    body: text.length > MAX_COMMENT_CHARS ? `${text.slice(0, MAX_COMMENT_CHARS - 1)}…` : text,
    at: Date.parse(c.created_at) || 0,
  };
}
