// `abcd items add --github` and `abcd items close github:issue:<n>` change the issue itself on
// GitHub (the local API stub, which fails the test on any call it does not know), under abcd's
// App token, and a close takes the item's claim first so it never closes an issue a lane holds.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signedInGitHubStub } from '../harness/github-person.js';
import { GitHubIssuesFake } from '../harness/github-issues.js';
import { remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';

const TOKEN = 'canary-person-token-issues-change';
const OWNER = 'octo';
const REPO = 'widgets';
const GITHUB_ITEMS = { items: { github: { repo: `${OWNER}/${REPO}` } } };

describe('abcd items add --github and close github:issue:<n>', () => {
  const github = signedInGitHubStub(TOKEN);
  const env = github.env;

  it('add opens an issue with the ready label and its dependencies as a Depends on line; main does not move', async () => {
    const remote = await remoteWithItems([], GITHUB_ITEMS);
    const s = await makeSession(remote.url, 'ada', { env: env() });
    const gh = new GitHubIssuesFake(github.stub, OWNER, REPO);
    gh.add({ number: 7, title: 'Blocker', labels: ['abcd:ready'] });
    let sent: unknown;
    github.stub.on({
      method: 'POST',
      path: `${gh.base}/issues`,
      reply: (req) => {
        sent = req.body;
        const b = req.body as { title: string; body: string; labels: string[] };
        return { status: 201, body: gh.rest(gh.add({ number: 8, title: b.title, body: b.body, labels: b.labels })) };
      },
    });
    await writeFile(join(s.dir, 'notes.md'), 'Search the widgets by name.\n');
    const main = (await remote.refs()).get('refs/heads/main');
    const r = await s.abcd([
      'items',
      'add',
      '--github',
      '--title',
      'Add search',
      '--from-file',
      'notes.md',
      '--depends-on',
      '#7',
      '--json',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ action: 'add', item: 'github:issue:8', changed: true });
    expect(sent).toEqual({ title: 'Add search', body: 'Search the widgets by name.\n\nDepends on #7\n', labels: ['abcd:ready'] });
    expect((await remote.refs()).get('refs/heads/main')).toBe(main);
    // A slug, or a hostile title, is refused before any call.
    const slug = await s.abcd(['items', 'add', 'search', '--github', '--title', 't', '--json']);
    expect(slug.code).toBe(2);
    const title = await s.abcd(['items', 'add', '--github', '--title', 'a\nb', '--json']);
    expect(title.json.refusal).toMatchObject({ code: 'usage', data: { reason: 'it has a line break or a control character' } });
    const dep = await s.abcd(['items', 'add', '--github', '--title', 't', '--depends-on', 'setup', '--json']);
    expect(dep.json.refusal).toMatchObject({ code: 'usage', data: { reason: 'not an issue number' } });
  }, 60_000);

  it('close comments and closes the issue under its claim, then releases it; closing it again calls nothing that writes', async () => {
    const remote = await remoteWithItems([], GITHUB_ITEMS);
    const s = await makeSession(remote.url, 'ada', { env: env() });
    const gh = new GitHubIssuesFake(github.stub, OWNER, REPO);
    gh.add({ number: 3, title: 'Old idea', labels: ['abcd:ready'] });
    gh.serveIssue(3, 2);
    gh.acceptComment(3);
    gh.acceptUpdate(3);
    const r = await s.abcd(['items', 'close', 'github:issue:3', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ action: 'close', item: 'github:issue:3', changed: true });
    expect(gh.issues.get(3)!.state).toBe('closed');
    expect(gh.comments.map((c) => c.body)).toEqual(['Closed as done with `abcd items close`.']);
    const again = await s.abcd(['items', 'close', 'github:issue:3', '--json']);
    expect(again.json).toMatchObject({ changed: false });
    // The claim was taken and given back: released, never left held.
    const claim = (await remote.refs()).get('refs/heads/abcd/claims/github/issue/3');
    expect(claim).toBeDefined();
    // Another session may take it at once: nothing of the close holds it.
    const other = await makeSession(remote.url, 'bob', { env: env() });
    const taken = await other.abcd(['reserve', 'github:issue:3', '--json']);
    expect(taken.code, taken.stdout).toBe(0);
    expect(taken.json).toMatchObject({ tookOverFrom: null });
  }, 60_000);

  it('close of an issue a lane holds is refused before any call to GitHub', async () => {
    const remote = await remoteWithItems([], GITHUB_ITEMS);
    const s = await makeSession(remote.url, 'ada', { env: env() });
    const lane = await makeSession(remote.url, 'lane', { env: env() });
    expect((await lane.abcd(['reserve', 'github:issue:4'])).code).toBe(0);
    const r = await s.abcd(['items', 'close', 'github:issue:4', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'held', data: { item: 'github:issue:4' } });
    expect(github.stub.requests).toEqual([]);
  }, 60_000);
});
