// GitHub issues over REST: the open issues carrying labels, one issue, its comments, its
// dependencies (blocked by) and sub-issues, and the writes (close, comment, edit a comment,
// open an issue). Every read is conditional (kept-answers.ts): an unchanged listing costs a
// 304 and no rate limit. GitHub Enterprise Server serves the same endpoints under /api/v3.
import { ForgeRejected } from '../../core/refusals.js';
import type { GitHubClient } from './client.js';
import { getKept, type KeptAnswers } from './kept-answers.js';
import { repoPath, type RepoName } from './pull-requests.js';
import {
  RestCommentListSchema,
  RestCommentSchema,
  RestIssueListSchema,
  RestIssueSchema,
  type RestComment,
  type RestIssue,
} from './issue-shapes.js';

export type { RestComment, RestIssue };

// GitHub's largest page. A listing past MAX_PAGES pages (5,000 issues) is cut there, and says so.
const PER_PAGE = 100;
const MAX_PAGES = 50;

export interface IssuesApi extends RepoName {
  client: GitHubClient;
  kept: KeptAnswers;
}

export interface IssueListing {
  issues: RestIssue[];
  /** Pages GitHub answered 304 to (unchanged since the last listing), of `pages` asked. */
  unchanged: number;
  pages: number;
  /** Set when the listing stopped at MAX_PAGES with more left. */
  truncated?: boolean;
}

/** The open issues carrying every label in `labels` (GitHub's own filter), pull requests left out. */
export async function listOpenIssues(api: IssuesApi, labels: readonly string[]): Promise<IssueListing> {
  const query: Record<string, string> = { state: 'open', per_page: String(PER_PAGE), sort: 'created', direction: 'asc' };
  if (labels.length) query.labels = labels.join(',');
  const issues: RestIssue[] = [];
  let unchanged = 0;
  let pages = 0;
  for (let page = 1; ; page++) {
    const q = page === 1 ? query : { ...query, page: String(page) };
    const what = `list the open issues labelled ${labels.join(', ') || '(any)'}${page > 1 ? `, page ${page}` : ''}`;
    const r = await getKept(api.client, api.kept, { path: `${repoPath(api)}/issues`, query: q, what }, RestIssueListSchema);
    pages++;
    if (!r.changed) unchanged++;
    issues.push(...r.data.filter((i) => i.pull_request === undefined));
    if (!hasNextPage(r.link)) return { issues, unchanged, pages };
    if (page >= MAX_PAGES) return { issues, unchanged, pages, truncated: true };
  }
}

/** One issue, open or closed; a missing one is ForgeRejected (not-found). */
export async function readIssue(api: IssuesApi, n: number): Promise<RestIssue> {
  const what = `read issue #${n}`;
  const r = await getKept(api.client, api.kept, { path: `${repoPath(api)}/issues/${n}`, what }, RestIssueSchema);
  return r.data;
}

/** The issue's comments, oldest first; `since` (an ISO instant) keeps only those updated at or after it. */
export async function listIssueComments(api: IssuesApi, n: number, since?: string): Promise<RestComment[]> {
  const query: Record<string, string> = { per_page: String(PER_PAGE), ...(since ? { since } : {}) };
  const out: RestComment[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const q = page === 1 ? query : { ...query, page: String(page) };
    const what = `read the comments of issue #${n}`;
    const r = await getKept(api.client, api.kept, { path: `${repoPath(api)}/issues/${n}/comments`, query: q, what }, RestCommentListSchema);
    out.push(...r.data);
    if (!hasNextPage(r.link)) break;
  }
  return out;
}

/**
 * The issues blocking this one (GitHub's "blocked by" dependencies), or undefined where the API
 * does not offer them (an older GitHub Enterprise Server answers 404): the caller falls back on
 * what the issue's body says.
 */
export async function listBlockedBy(api: IssuesApi, n: number): Promise<RestIssue[] | undefined> {
  return undefinedWhenAbsent(() =>
    getKept(
      api.client,
      api.kept,
      {
        path: `${repoPath(api)}/issues/${n}/dependencies/blocked_by`,
        query: { per_page: String(PER_PAGE) },
        what: `read what blocks issue #${n}`,
      },
      RestIssueListSchema,
    ),
  );
}

/** The issue's sub-issues, or undefined where the API does not offer them. */
export async function listSubIssues(api: IssuesApi, n: number): Promise<RestIssue[] | undefined> {
  return undefinedWhenAbsent(() =>
    getKept(
      api.client,
      api.kept,
      {
        path: `${repoPath(api)}/issues/${n}/sub_issues`,
        query: { per_page: String(PER_PAGE) },
        what: `read the sub-issues of issue #${n}`,
      },
      RestIssueListSchema,
    ),
  );
}

/** Closes the issue as completed (closing a closed issue changes nothing and answers 200). */
export async function closeIssue(api: IssuesApi, n: number): Promise<RestIssue> {
  return api.client.rest(
    {
      method: 'PATCH',
      path: `${repoPath(api)}/issues/${n}`,
      body: { state: 'closed', state_reason: 'completed' },
      what: `close issue #${n}`,
    },
    RestIssueSchema,
  );
}

/** Opens a new issue. */
export async function createIssue(api: IssuesApi, i: { title: string; body: string; labels?: readonly string[] }): Promise<RestIssue> {
  return api.client.rest(
    {
      method: 'POST',
      path: `${repoPath(api)}/issues`,
      body: { title: i.title, body: i.body, ...(i.labels?.length ? { labels: i.labels } : {}) },
      what: `open an issue titled ${JSON.stringify(i.title.slice(0, 60))}`,
    },
    RestIssueSchema,
  );
}

export async function createIssueComment(api: IssuesApi, n: number, body: string): Promise<RestComment> {
  return api.client.rest(
    { method: 'POST', path: `${repoPath(api)}/issues/${n}/comments`, body: { body }, what: `comment on issue #${n}` },
    RestCommentSchema,
  );
}

/** Rewrites a comment in place (the id is the comment's, not the issue's). */
export async function updateIssueComment(api: IssuesApi, id: number, body: string): Promise<RestComment> {
  return api.client.rest(
    { method: 'PATCH', path: `${repoPath(api)}/issues/comments/${id}`, body: { body }, what: `update comment ${id}` },
    RestCommentSchema,
  );
}

/** The issue numbers a body names as `depends on #n` (also `blocked by #n`), one per line or several: #1, #2. */
export function dependsOnInBody(body: string | null | undefined): number[] {
  const out = new Set<number>();
  const line = /^[ \t>*-]*(?:depends on|blocked by)[ \t]*:?[ \t]*(#\d{1,9}(?:[ \t]*(?:,|&|and)?[ \t]*#\d{1,9})*)/gim;
  for (const m of (body ?? '').matchAll(line)) {
    for (const n of m[1]!.matchAll(/#(\d{1,9})/g)) out.add(Number(n[1]));
  }
  return [...out].sort((a, b) => a - b);
}

function hasNextPage(link: string | undefined): boolean {
  return link !== undefined && /<[^>]*>\s*;\s*rel="next"/.test(link);
}

async function undefinedWhenAbsent<T>(read: () => Promise<{ data: T }>): Promise<T | undefined> {
  try {
    return (await read()).data;
  } catch (e) {
    if (e instanceof ForgeRejected && e.data.reason === 'not-found') return undefined;
    throw e;
  }
}

/** The repository an issue of another repository's answer belongs to, from its repository_url. */
export function repositoryOf(issue: RestIssue): RepoName | undefined {
  const m = /\/repos\/([^/]+)\/([^/]+)\/?$/.exec(issue.repository_url ?? '');
  return m ? { owner: decodeURIComponent(m[1]!), repo: decodeURIComponent(m[2]!) } : undefined;
}
