// The forge seam: the registries are exhaustive (forge-registry.check.ts, compiled here), a
// remote's forge is detected through the providers in order, and `land` and the item sources
// do what the forge they are handed says. A test-only forge lands through a "pull request" that
// a real git push merges, against a real bare remote: nothing outside src/forges knew its kind.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { Forge, ForgeItems, PullRequestLanding, PullRequestMerge } from '../../src/forges/forge.js';
import { gitProvider } from '../../src/forges/git/provider.js';
import { GitHubForge } from '../../src/forges/github/provider.js';
import { FORGE_ITEM_SOURCES, forgeItemSourceNames, forgeItemsNotConfigured, openForgeItemSources } from '../../src/forges/item-sources.js';
import type { ForgeItemSource } from '../../src/forges/item-source.js';
import { detectForge, FORGE_PROVIDERS } from '../../src/forges/registry.js';
import { UnsafeEnvironment, UsageError } from '../../src/core/refusals.js';
import { cleanupTemp, git } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

afterAll(cleanupTemp);

describe('forge registries', () => {
  it('forge-registry.check.ts compiles: a registry without a kind, or a Forge asked its kind, is refused', () => {
    const file = fileURLToPath(new URL('./forge-registry.check.ts', import.meta.url));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    // The check file's own diagnostics: src/ is type-checked whole by the type check of the tree.
    const errors = ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
      const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
    expect(errors).toEqual([]);
  }, 60_000);

  it.each([
    ['https://github.com/o/r.git', 'github.com/o/r'],
    ['git@github.com:o/r.git', 'github.com/o/r'],
    ['ssh://git@ssh.github.com:443/o/r', 'github.com/o/r'],
    ['https://acme.ghe.com/o/r', 'acme.ghe.com/o/r'],
    ['https://ghe.example.com/o/r', 'ghe.example.com/o/r'],
  ])('%s is on GitHub (%s) and lands through a pull request', (url, name) => {
    const forge = detectForge(url, ['ghe.example.com']);
    expect(forge).toBeInstanceOf(GitHubForge);
    expect(forge.name).toBe(name);
    expect(forge.landing.through).toBe('pull-request');
  });

  it.each([
    undefined,
    'file:///srv/remote.git',
    '/srv/remote.git',
    'git@git.example.com:o/r.git',
    'https://gitlab.example.com/o/r',
    'https://github.com/o',
  ])('%s is a plain git remote: no credentials of abcd, the records queue', async (url) => {
    const forge = detectForge(url, []);
    expect(forge.name).toBe('a plain git remote');
    expect(forge.landing).toEqual({ through: 'records-queue' });
    expect(await forge.credentials({} as never)).toEqual({});
  });

  it('asks the providers in order and takes the first forge one names', () => {
    const fake: Forge = { name: 'a fake forge', credentials: () => Promise.resolve({}), landing: { through: 'records-queue' } };
    const seen: (string | undefined)[] = [];
    const registry = {
      github: {
        kind: 'github' as const,
        detect: (url: string | undefined) => (seen.push(url), url?.startsWith('fake:') ? fake : undefined),
      },
      git: gitProvider,
    };
    expect(detectForge('fake://x/y', [], registry)).toBe(fake);
    expect(detectForge('https://github.com/o/r', [], registry).name).toBe('a plain git remote');
    expect(seen).toEqual(['fake://x/y', 'https://github.com/o/r']);
    // The real registry has one provider per kind, GitHub asked before the plain remote that takes any.
    expect(Object.keys(FORGE_PROVIDERS)).toEqual(['github', 'git']);
  });

  it('opens the item sources main sets up, and refuses an item of a source it does not', () => {
    const opened: unknown[] = [];
    const source = { source: 'github' } as ForgeItemSource;
    const fakeItems: ForgeItems<{ labels: string[] }> = {
      source: 'github',
      open: (input) => (opened.push(input.config), source),
      notConfigured: (item) => new UsageError(`${item}: not set up`, 'item-source', { item, source: 'github', reason: 'not-configured' }),
    };
    const registry = { github: fakeItems, git: undefined };
    const input = { forge: detectForge(undefined, []), deps: {} as never, commonDir: '/nowhere' };
    expect(openForgeItemSources({}, input, registry)).toEqual([]);
    expect(openForgeItemSources({ github: { labels: ['x'] } }, input, registry)).toEqual([['github', source]]);
    expect(opened).toEqual([{ labels: ['x'] }]);
    const refusal = forgeItemsNotConfigured('github', 'github:issue:1', registry);
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal?.data).toMatchObject({ source: 'github', reason: 'not-configured' });
    expect(forgeItemsNotConfigured('jira', 'jira:issue:1', registry)).toBeUndefined();
    expect(forgeItemSourceNames(FORGE_ITEM_SOURCES)).toEqual(['github']);
  });
});

describe('land through a test-only forge', () => {
  /** A forge whose pull request "merges" by pushing the expected head to main, as a forge would. */
  function fakeForge(remoteUrl: string, env: Record<string, string>, cwd: string, refuse?: Error) {
    const merges: PullRequestMerge[] = [];
    const pushes: string[][] = [];
    const pullRequests: PullRequestLanding = {
      precheck() {
        if (refuse) throw refuse;
      },
      beforePush: (o) => (pushes.push([...o.changedPaths]), Promise.resolve()),
      async merge(o) {
        merges.push(o);
        const found = await o.readClaimTip();
        if (found !== o.claimTip) throw o.fenced(found);
        await git(cwd, ['push', '-q', remoteUrl, `${o.expectedHead}:refs/heads/${o.base}`], env);
        return { mergeCommit: o.expectedHead, said: 'change 1 of the fake forge', landed: {} };
      },
    };
    const forge: Forge = {
      name: 'a fake forge',
      credentials: () => Promise.resolve({}),
      landing: { through: 'pull-request', pullRequests },
    };
    return { forge, merges, pushes };
  }

  async function openOn(dir: string, env: Record<string, string>) {
    const [{ openRepo }, { systemClock }, { envConfig }] = await Promise.all([
      import('../../src/repo/repo.js'),
      import('../../src/core/deps.js'),
      import('../../src/cli/env-config.js'),
    ]);
    return openRepo({
      cwd: dir,
      env,
      config: envConfig(env),
      clock: systemClock,
      out: { stdout() {}, stderr() {}, isTTY: false },
      remote: 'origin',
    });
  }

  const gate = <T>(_label: string, _until: number, fn: () => Promise<T>) => fn();

  it('pushes the work branch under the claim, lets the forge merge the head it pushed, and marks the claim done', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'fay');
    expect((await s.abcd(['reserve', 'fake-item'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/fake-item']);
    const head = await s.commit('fake.txt', 'fake\n');
    const [{ land }, { readSnapshot }] = await Promise.all([import('../../src/land/land.js'), import('../../src/repo/snapshot.js')]);
    const repo = await openOn(s.dir, s.env);
    const fake = fakeForge(remote.url, s.env, s.dir);
    const r = await land(
      { ...repo, forge: fake.forge },
      { item: { source: 'local', kind: 'item', id: 'fake-item' }, waitMs: 60_000, keep: false },
      gate,
    );
    expect(r).toMatchObject({ item: 'fake-item', tip: head, head, branch: 'work/fake-item', attempts: 1, claim: 'done' });
    expect(r.github).toBeUndefined();
    expect(fake.pushes).toEqual([['fake.txt']]);
    expect(fake.merges).toHaveLength(1);
    expect(fake.merges[0]).toMatchObject({ branch: 'work/fake-item', base: 'main', expectedHead: head, title: 'fake-item' });
    const refs = await remote.refs();
    expect(refs.get('refs/heads/main')).toBe(head);
    expect(refs.get('refs/heads/work/fake-item')).toBe(head);
    const claim = (await readSnapshot(repo)).claims.get('refs/heads/abcd/claims/local/item/fake-item');
    expect(claim?.claim).toMatchObject({ state: 'done', landed: { main: 'main', tip: head } });
    expect(await s.git(['log', '-1', '--format=%s', claim!.tip])).toContain('through change 1 of the fake forge');
  }, 120_000);

  it("a forge's precheck refuses before anything is written", async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'gil');
    expect((await s.abcd(['reserve', 'refused-item'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/refused-item']);
    await s.commit('refused.txt', 'no\n');
    const before = await remote.refs();
    const { land } = await import('../../src/land/land.js');
    const repo = await openOn(s.dir, s.env);
    const refusal = new UnsafeEnvironment('the fake forge wants a token', { host: 'fake' });
    const fake = fakeForge(remote.url, s.env, s.dir, refusal);
    const landing = land(
      { ...repo, forge: fake.forge },
      { item: { source: 'local', kind: 'item', id: 'refused-item' }, waitMs: 60_000, keep: false },
      gate,
    );
    await expect(landing).rejects.toBe(refusal);
    expect(fake.pushes).toEqual([]);
    expect(fake.merges).toEqual([]);
    expect(await remote.refs()).toEqual(before);
  }, 120_000);
});
