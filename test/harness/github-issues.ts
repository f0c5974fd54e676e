// GitHub's issues for the stub (github-stub.ts): a small issue tracker a test fills, served on
// the REST paths abcd calls (listing, one issue, comments, blocked_by, sub_issues, comment and
// close). Reads answer with an ETag and a 304 when If-None-Match names it, as GitHub does; only
// the routes a test asks for are registered, so the stub still fails on any other call and on
// a route abcd never used.
import { createHash } from 'node:crypto';
import type { GitHubStub, RecordedRequest, StubReply } from './github-stub.js';

export interface FakeIssue {
  number: number;
  title: string;
  body?: string | null;
  labels: string[];
  state: 'open' | 'closed';
  /** Issues of the same repository that block this one (GitHub's dependencies). */
  blockedBy?: number[];
  subIssues?: number[];
  /** A pull request: the issues listing shows them too. */
  pull?: boolean;
  createdAt?: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  login: string;
  association: string;
  bot?: boolean;
  at: string;
}

type Times = number | 'many';

export class GitHubIssuesFake {
  readonly issues = new Map<number, FakeIssue>();
  readonly comments: FakeComment[] = [];
  /** The paths of the conditional GETs answered 304, in order. */
  readonly notModified: string[] = [];
  private nextComment = 1000;

  constructor(
    private readonly stub: GitHubStub,
    readonly owner: string,
    readonly repo: string,
  ) {}

  get base(): string {
    return `/repos/${this.owner}/${this.repo}`;
  }

  add(i: Partial<FakeIssue> & { number: number; title: string }): FakeIssue {
    const issue: FakeIssue = { labels: [], state: 'open', ...i };
    this.issues.set(i.number, issue);
    return issue;
  }

  /** A comment written a minute ago, or at `at`. */
  comment(issue: number, c: { login: string; association: string; body: string; bot?: boolean; at?: string }): FakeComment {
    const made = { id: this.nextComment++, issue, ...c, at: c.at ?? new Date(Date.now() - 60_000).toISOString() };
    this.comments.push(made);
    return made;
  }

  /** GET /issues: the open ones carrying every label asked for (GitHub's filter), pull requests included. */
  serveListing(times: Times = 'many'): void {
    this.stub.on({
      method: 'GET',
      path: `${this.base}/issues`,
      times,
      reply: (req) => {
        const want = (req.query.labels ?? '').split(',').filter(Boolean);
        const state = req.query.state ?? 'open';
        const list = [...this.issues.values()]
          .filter((i) => (state === 'all' || i.state === state) && want.every((l) => i.labels.includes(l)))
          .sort((a, b) => a.number - b.number)
          .map((i) => this.rest(i));
        return this.conditional(req, list);
      },
    });
  }

  serveIssue(n: number, times: Times = 'many'): void {
    this.stub.on({
      method: 'GET',
      path: `${this.base}/issues/${n}`,
      times,
      reply: (req) => {
        const i = this.issues.get(n);
        return i ? this.conditional(req, this.rest(i)) : { status: 404, body: { message: 'Not Found' } };
      },
    });
  }

  serveComments(n: number, times: Times = 'many'): void {
    this.stub.on({
      method: 'GET',
      path: `${this.base}/issues/${n}/comments`,
      times,
      reply: (req) => {
        const since = req.query.since ? Date.parse(req.query.since) : -Infinity;
        const list = this.comments.filter((c) => c.issue === n && Date.parse(c.at) >= since).map((c) => restComment(c));
        return this.conditional(req, list);
      },
    });
  }

  serveBlockedBy(n: number, times: Times = 'many'): void {
    this.stub.on({
      method: 'GET',
      path: `${this.base}/issues/${n}/dependencies/blocked_by`,
      times,
      reply: (req) =>
        this.conditional(
          req,
          (this.issues.get(n)?.blockedBy ?? []).map((b) => this.rest(this.issues.get(b)!)),
        ),
    });
  }

  serveSubIssues(n: number, times: Times = 'many'): void {
    this.stub.on({
      method: 'GET',
      path: `${this.base}/issues/${n}/sub_issues`,
      times,
      reply: (req) =>
        this.conditional(
          req,
          (this.issues.get(n)?.subIssues ?? []).map((b) => this.rest(this.issues.get(b)!)),
        ),
    });
  }

  /** POST a comment: kept as written by the App's bot. */
  acceptComment(n: number, times: Times = 1, login = 'abcd-lanes[bot]'): void {
    this.stub.on({
      method: 'POST',
      path: `${this.base}/issues/${n}/comments`,
      times,
      reply: (req) => {
        const body = String((req.body as { body?: unknown }).body ?? '');
        const c = { id: this.nextComment++, issue: n, body, login, association: 'NONE', bot: true, at: new Date().toISOString() };
        this.comments.push(c);
        return { status: 201, body: restComment(c) };
      },
    });
  }

  /** PATCH a comment: its body rewritten in place. */
  acceptCommentUpdate(id: number, times: Times = 1): void {
    this.stub.on({
      method: 'PATCH',
      path: `${this.base}/issues/comments/${id}`,
      times,
      reply: (req) => {
        const c = this.comments.find((x) => x.id === id);
        if (!c) return { status: 404, body: { message: 'Not Found' } };
        c.body = String((req.body as { body?: unknown }).body ?? '');
        return { body: restComment(c) };
      },
    });
  }

  /** PATCH the issue (state, state_reason). */
  acceptUpdate(n: number, times: Times = 1): void {
    this.stub.on({
      method: 'PATCH',
      path: `${this.base}/issues/${n}`,
      times,
      reply: (req) => {
        const i = this.issues.get(n);
        if (!i) return { status: 404, body: { message: 'Not Found' } };
        const b = req.body as { state?: 'open' | 'closed' };
        if (b.state) i.state = b.state;
        return { body: this.rest(i) };
      },
    });
  }

  /** The REST issue object, with the summaries GitHub adds where it has dependencies and sub-issues. */
  rest(i: FakeIssue) {
    const openOf = (ns: number[] | undefined) => (ns ?? []).filter((n) => this.issues.get(n)?.state === 'open').length;
    return {
      number: i.number,
      title: i.title,
      body: i.body ?? null,
      state: i.state,
      labels: i.labels.map((name) => ({ name, color: 'ededed' })),
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${i.number}`,
      repository_url: `https://api.github.com/repos/${this.owner}/${this.repo}`,
      created_at: i.createdAt ?? '2026-11-01T10:00:00Z',
      user: { login: 'ada', type: 'User' },
      issue_dependencies_summary: {
        blocked_by: openOf(i.blockedBy),
        total_blocked_by: (i.blockedBy ?? []).length,
        blocking: 0,
        total_blocking: 0,
      },
      sub_issues_summary: {
        total: (i.subIssues ?? []).length,
        completed: (i.subIssues ?? []).length - openOf(i.subIssues),
        percent_completed: 0,
      },
      ...(i.pull ? { pull_request: { url: `https://api.github.com/repos/${this.owner}/${this.repo}/pulls/${i.number}` } } : {}),
    };
  }

  private conditional(req: RecordedRequest, body: unknown): StubReply {
    const etag = `W/"${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 20)}"`;
    if (req.ifNoneMatch === etag) {
      this.notModified.push(req.path);
      return { status: 304, headers: { etag } };
    }
    return { headers: { etag }, body };
  }
}

export function restComment(c: FakeComment) {
  return {
    id: c.id,
    body: c.body,
    user: { login: c.login, type: c.bot ? 'Bot' : 'User' },
    author_association: c.association,
    created_at: c.at,
    updated_at: c.at,
    html_url: `https://github.com/o/r/issues/${c.issue}#issuecomment-${c.id}`,
  };
}
