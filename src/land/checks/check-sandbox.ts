// Every land check runs code of the commit under test: the lander's, a lane agent's, and under
// speculation the entries' ahead of it. It runs in the sandbox agents run in (src/machine/sandbox/):
// the worktree of the commit under test writable, the system read-only, a private HOME and /tmp,
// the person's home, abcd's config and machine folders, the clone and every agent socket hidden,
// an environment built from an allow-list plus `land.env`. Its git sees the commit under test
// through a repository of its own: what main reaches, borrowed read-only from the lane object
// store, and what the entries under test add, copied into it. Never the clone's own objects
// (the person's unpushed commits, stashes, dropped work), config (a CI checkout keeps its token
// there), refs or hooks. Its tool cache is the tested tree's own (check-cache.ts).
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UnsafeEnvironment } from '../../core/refusals.js';
import { unlessMissing } from '../../core/best-effort.js';
import { Git as GitClient, type Git } from '../../git/git.js';
import { probeBwrap, sandboxArgv, type Sandbox, type SandboxMode, type SandboxPlan } from '../../machine/sandbox/bwrap.js';
import { allowedEnv } from '../../machine/sandbox/environment.js';
import { keyFilesOf } from '../../machine/gateway/key-file.js';
import { secretPlaces } from '../../machine/sandbox/places.js';
import type { NetworkEvent, SandboxNetwork } from '../../machine/sandbox/sandbox-network.js';
import type { RelayKind } from '../../machine/sandbox/network-log.js';
import { fillLaneStore } from '../../repo/lane-objects.js';
import type { Repo } from '../../repo/repo.js';
import { treeCheckCache } from './check-cache.js';
import { runChecks, type CheckRun, type CheckWatch, type LandConfig } from './checks.js';

/** Who asked for the land: a lane (whose agent wrote the work) or the person's own session. */
export interface LandCaller {
  lane?: { attended: boolean };
}

export interface CheckSandboxChoice {
  sandbox: Sandbox;
  warning?: string;
  /** No sandbox works and the stack holds others' entries: test alone, on main, instead. */
  aloneOnly?: boolean;
}

/** What `land.sandbox: none` says on every land that runs checks. */
export const UNSANDBOXED_CHECKS =
  'land.sandbox is "none": the checks run as you, with this computer\'s network and files (no sandbox, no egress proxy)';

/**
 * The sandbox a land's checks run in. `land.sandbox: none` is the person's explicit opt-out,
 * refused in an unattended lane. Without a working bubblewrap, code from a lane is never run
 * (exit 7), and a person's own land runs unsandboxed only what they could run themselves: main
 * and their own entry (`aloneOnly`: no entry of another session's on the stack).
 */
export async function chooseCheckSandbox(mode: SandboxMode, repo: Repo, caller: LandCaller): Promise<CheckSandboxChoice> {
  if (mode === 'none') {
    if (caller.lane && !caller.lane.attended) {
      throw new UnsafeEnvironment(
        'land.sandbox is "none" in .abcd/config.json, and an unattended lane never runs checks on its agent\'s work unsandboxed; ' +
          'nothing landed. Set land.sandbox to "auto" (bubblewrap), or run the lane --attended to take that on yourself.',
        { reason: 'check-unsandboxed-in-lane', sandbox: 'auto' },
      );
    }
    return { sandbox: 'none', warning: UNSANDBOXED_CHECKS };
  }
  const why = await probeBwrap(repo.deps.env);
  if (!why) return { sandbox: 'bwrap' };
  if (mode === 'bwrap' || caller.lane) {
    throw new UnsafeEnvironment(
      `${why}, and ${caller.lane ? "a lane's checks run its agent's code" : 'land.sandbox is "bwrap"'}: abcd does not run them ` +
        'unsandboxed; nothing landed. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap socat; bubblewrap needs ' +
        'unprivileged user namespaces, socat relays the checks\' network out), or set land.sandbox to "none" in .abcd/config.json to run checks as yourself knowingly.',
      { reason: 'no-check-sandbox', why, sandbox: mode === 'bwrap' ? 'bwrap' : 'auto' },
    );
  }
  return {
    sandbox: 'none',
    aloneOnly: true,
    warning: `${why}: the checks ran unsandboxed, with this computer's network and files, on main and this entry only`,
  };
}

export interface CheckJail {
  /** The argv of one check command. */
  argv(command: string): string[];
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export interface CheckVars {
  item: string;
  tip: string;
  base: string;
}

/** What a sandboxed check's repository and cache are made from, besides the commit under test. */
export interface CheckScope {
  /** Main's tip as the land read it: the objects it reaches are borrowed, the rest are copied. */
  main: string;
  /** Who runs the checks: a lane's and the person's never share a tool cache. */
  caller: 'lane' | 'person';
  checks: readonly string[];
}

/** What one test of one commit runs its checks with. */
export async function prepareCheckJail(
  repo: Repo,
  wt: Git,
  o: {
    sandbox: Sandbox;
    envNames: readonly string[];
    network: LandConfig['network'];
    /** The runtimes' keyFile settings: the files are hidden too. */
    keyFiles?: readonly string[];
    vars: CheckVars;
    scope: CheckScope;
    onNetwork?: (e: NetworkEvent) => void;
    onRelay?: (relay: RelayKind) => void;
  },
): Promise<CheckJail> {
  const { env, config } = repo.deps;
  const land = { ABCD_LAND_ITEM: o.vars.item, ABCD_LAND_TIP: o.vars.tip, ABCD_LAND_BASE: o.vars.base };
  if (o.sandbox === 'none') {
    // The person's opt-out runs the check as them, in the worktree; the environment is still built.
    const own = { ...allowedEnv(env, o.envNames), HOME: config.home, ...(env.TMPDIR ? { TMPDIR: env.TMPDIR } : {}), ...land };
    return { argv: (c) => ['sh', '-c', c], env: own, dispose: async () => undefined };
  }
  const jail = await mkdtemp(join(config.tmpDir, 'abcd-check-'));
  let net: SandboxNetwork | undefined;
  try {
    net = await openCheckNetwork(repo, jail, o);
    if (net) o.onRelay?.(net.relay);
    const home = join(jail, 'home');
    const tmp = join(jail, 'tmp');
    await Promise.all([mkdir(home), mkdir(tmp)]);
    const objects = await fillLaneStore({ env, commonDir: repo.commonDir, runHead: o.scope.main });
    const own = await ownRepository(repo, wt, { jail, objects, main: o.scope.main });
    const cache = await treeCheckCache({
      machineDir: config.machineDir,
      uid: String(process.getuid?.() ?? 'user'),
      tree: own.tree,
      checks: o.scope.checks,
      caller: o.scope.caller,
      now: repo.deps.clock.now(),
    });
    const plan = checkPlan(repo, wt, { keyFiles: o.keyFiles, dotgit: own.dotgit, jail, objects, cache, net });
    const caches = { XDG_CACHE_HOME: cache, npm_config_cache: join(cache, 'npm'), PIP_CACHE_DIR: join(cache, 'pip') };
    const opened = net;
    return {
      argv: (c) => sandboxArgv(plan, ['/bin/sh', '-c', c]),
      env: { ...allowedEnv(env, o.envNames), HOME: home, TMPDIR: tmp, ...caches, ...land, ...(net?.env ?? {}) },
      dispose: async () => {
        await opened?.close();
        await rm(jail, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await net?.close();
    await rm(jail, { recursive: true, force: true });
    throw e;
  }
}

type JailOptions = Parameters<typeof prepareCheckJail>[2];

// Its own loopback only; with an allow-list (empty by default), the egress proxy as the way out.
// Loaded here, not at the top: the proxy's node:http costs a land 40-60 ms of start-up, and a
// land with no checks never opens a network.
async function openCheckNetwork(repo: Repo, jail: string, o: JailOptions): Promise<SandboxNetwork | undefined> {
  if (!o.network) return undefined;
  const { openSandboxNetwork } = await import('../../machine/sandbox/sandbox-network.js');
  return await openSandboxNetwork({
    base: jail,
    ...(repo.deps.self ? { node: repo.deps.self.node } : {}),
    allow: o.network.allow,
    allowKey: 'land.network.allow',
    ...(o.onNetwork ? { onEvent: o.onNetwork } : {}),
  });
}

/** What the check's sandbox hides and binds: the worktree, its own repository, the jail, the lane store, the cache. */
function checkPlan(
  repo: Repo,
  wt: Git,
  o: {
    keyFiles: readonly string[] | undefined;
    dotgit: string;
    jail: string;
    objects: string;
    cache: string;
    net: SandboxNetwork | undefined;
  },
): SandboxPlan {
  const { env, config, cwd } = repo.deps;
  const { jail, objects, cache, net } = o;
  return {
    hide: [...secretPlaces(env, config), ...keyFilesOf(o.keyFiles ?? [], config.home), repo.commonDir, dirname(repo.commonDir), cwd],
    binds: [
      { path: wt.dir, writable: true },
      { path: join(wt.dir, '.git'), from: o.dotgit },
      { path: jail, writable: true },
      { path: objects },
      { path: cache, writable: true },
      ...(net?.binds ?? []),
    ],
    chdir: wt.dir,
    ...(net ? { inside: net.prefix } : {}),
  } satisfies SandboxPlan;
}

/**
 * A repository of the check's own in `jail`: HEAD at the worktree's commit, the worktree's index,
 * nothing of the clone's config, refs or hooks. It borrows `objects` (the lane store: what main
 * reaches) read-only, and holds a copy of what the commit under test reaches beyond main (the
 * entries under test, abcd's own integration commits): one pack from the clone, made by walking
 * from that commit, so an object nothing tested reaches is never in it. Returns the `.git` file
 * that points the worktree at it inside the sandbox, and the tested tree.
 */
async function ownRepository(
  repo: Repo,
  wt: Git,
  o: { jail: string; objects: string; main: string },
): Promise<{ dotgit: string; tree: string }> {
  const { head, tree, index, shallow, format } = await wt.clone.worktreeFacts();
  const at = (p: string) => (isAbsolute(p) ? p : resolve(wt.dir, p));
  const gitDir = join(o.jail, 'git');
  await mkdir(join(gitDir, 'objects', 'info'), { recursive: true });
  await mkdir(join(gitDir, 'objects', 'pack'), { recursive: true });
  await mkdir(join(gitDir, 'refs', 'heads'), { recursive: true });
  const ext = format === 'sha1' ? '' : `[extensions]\n\tobjectformat = ${format}\n`;
  await writeFile(join(gitDir, 'config'), `[core]\n\trepositoryformatversion = ${ext ? 1 : 0}\n\tbare = false\n${ext}`);
  await writeFile(join(gitDir, 'HEAD'), `${head}\n`);
  await writeFile(join(gitDir, 'objects', 'info', 'alternates'), `${o.objects}\n`);
  await copyTested(repo, { gitDir, head, main: o.main });
  await copyFile(at(index), join(gitDir, 'index')).catch(unlessMissing(undefined));
  // A shallow clone's history ends where its shallow file says; without it git would look further.
  // A clone that is not shallow has none.
  await copyFile(at(shallow), join(gitDir, 'shallow')).catch(unlessMissing(undefined));
  const dotgit = join(o.jail, 'dotgit');
  await writeFile(dotgit, `gitdir: ${gitDir}\n`);
  return { dotgit, tree };
}

/** What `head` reaches and `main` does not, packed in the clone and indexed in the check's repository. */
async function copyTested(repo: Repo, o: { gitDir: string; head: string; main: string }): Promise<void> {
  if (o.head === o.main) return;
  const clone = new GitClient(repo.commonDir, repo.deps.env);
  const pack = await clone.packs.mustPackObjects([o.head], [o.main], { env: { GIT_DIR: repo.commonDir } });
  if (pack.length < 12 || pack.readUInt32BE(8) === 0) return;
  await new GitClient(o.gitDir, repo.deps.env).packs.mustIndexPack(pack, { env: { GIT_DIR: o.gitDir } });
}

/** Runs the configured checks on the worktree's commit in their sandbox, removed afterwards. */
export async function runJailedChecks(
  repo: Repo,
  wt: Git,
  o: {
    config: LandConfig;
    sandbox: Sandbox;
    vars: CheckVars;
    main: string;
    caller: CheckScope['caller'];
    signal: AbortSignal;
    watch?: CheckWatch;
  },
): Promise<CheckRun[]> {
  if (o.config.checks.length === 0) return [];
  const jail = await prepareCheckJail(repo, wt, {
    sandbox: o.sandbox,
    envNames: o.config.envNames,
    network: o.config.network,
    keyFiles: o.config.keyFiles,
    vars: o.vars,
    ...(o.watch?.network ? { onNetwork: (e: NetworkEvent) => o.watch!.network!(e) } : {}),
    ...(o.watch?.relay ? { onRelay: (relay: RelayKind) => o.watch!.relay!(relay) } : {}),
    scope: { main: o.main, caller: o.caller, checks: o.config.checks },
  });
  try {
    return await runChecks({
      cwd: wt.dir,
      checks: o.config.checks,
      argv: jail.argv,
      env: jail.env,
      timeoutMs: o.config.timeoutMs,
      retries: o.config.retries,
      signal: o.signal,
      now: () => repo.deps.clock.now(),
      ...(o.watch ? { watch: o.watch } : {}),
    });
  } finally {
    await jail.dispose();
  }
}
