// The agent's own repository. abcd sets it up (before the agent runs, so its config is
// abcd's), then treats it as hostile: the agent may rewrite its .git/config, hooks, refs and
// alternates. Afterwards abcd never runs git *in* it. It reads the agent's head from plain
// files, copies the agent's object files (regular files only: no symlink, no alternates),
// reads the working tree as data with a private index, and builds what would land in a
// folder of its own over the lane store (never the clone's objects: ADR 0060); a trusted git
// imports that into the lane's repository with index-pack --strict, which checks every
// object (ADR 0061). ADR 0023.
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Git } from '../../git/git.js';
import type { Tried } from '../../git/objects.js';
import { AgentObjectsRefused } from '../../core/refusals.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { assertWithinLimits, type ChangeLimits } from '../guards/change-limits.js';
import { alternatesList } from '../../repo/lane-objects.js';
import type { Env } from '../../core/deps.js';
import type { Signature } from '../../records/objects.js';
import { isRefSafe } from '../../records/refs.js';
import { unlessSystemError } from '../../core/best-effort.js';

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Creates `<cycleDir>/wt`: a repository borrowing the lane store's objects (`objectsDir`), on `branch` at `runHead`. */
export async function prepareAgentRepo(o: {
  env: Env;
  objectsDir: string;
  cycleDir: string;
  branch: string;
  runHead: string;
  who: Signature;
}): Promise<string> {
  const wt = join(o.cycleDir, 'wt');
  // What `git init --template=` lays out, written directly (a process less per cycle): the
  // config and HEAD below, the object folders, and the branch as a loose ref.
  const dotGit = join(wt, '.git');
  // What update-ref would have refused, before anything is written.
  if (!OID.test(o.runHead) || !isRefSafe(`refs/heads/${o.branch}`)) throw new Error(`cannot set branch ${o.branch} to ${o.runHead}`);
  await Promise.all([
    mkdir(join(dotGit, 'objects/info'), { recursive: true }),
    mkdir(join(dotGit, 'objects/pack'), { recursive: true }),
    mkdir(join(dotGit, 'refs/tags'), { recursive: true }),
    mkdir(dirname(join(dotGit, 'refs/heads', o.branch)), { recursive: true }),
  ]);
  await writeFile(join(dotGit, 'objects/info/alternates'), `${o.objectsDir}\n`);
  const cfg = [
    ['user.name', o.who.name],
    ['user.email', o.who.email],
    ['commit.gpgsign', 'false'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
  ];
  const config = `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n${cfg
    .map(([k, v]) => `[${k!.split('.')[0]}]\n\t${k!.split('.')[1]} = ${JSON.stringify(v)}\n`)
    .join('')}`;
  await writeFile(join(dotGit, 'config'), config);
  await writeFile(join(dotGit, 'HEAD'), `ref: refs/heads/${o.branch}\n`);
  await writeFile(join(dotGit, 'refs/heads', o.branch), `${o.runHead}\n`);
  // The agent has not run yet: this repository and its config are still abcd's own.
  const agent = new Git(wt, o.env);
  await agent.work.readTree(o.runHead, { update: true });
  return wt;
}

/** What the agent left: its head (if it committed) and the commit abcd would push, or none. */
export interface AgentWork {
  /** The commit to land (agent's commits plus what it left uncommitted), or undefined: no change. */
  head?: string;
  /** The agent's own head, when it committed on top of the run head. */
  agentHead?: string;
  /** Why the agent's commits were not used (HEAD unreadable, not on the run head ...). */
  ignored?: string;
}

/**
 * Takes the agent's work into the lane's repository as objects, never running git in the
 * agent's. Everything it would land (its commits and the snapshot of what it left) is built
 * in a folder of abcd's over the lane store, measured against the limits, and only then
 * imported through `index-pack --strict`: an object git refuses fails the cycle
 * (AgentObjectsRefused), a change too big fails it too (ChangeTooLarge), and neither leaves
 * anything in the lane's repository.
 */
export async function collectAgentWork(o: {
  lane: Git;
  env: Env;
  laneGitDir: string;
  /** The lane store's objects (fillLaneStore): what main reaches, and nothing of the person's. */
  storeObjects: string;
  cycleDir: string;
  runHead: string;
  item: string;
  who: Signature;
  atMs: number;
  limits: ChangeLimits;
}): Promise<AgentWork> {
  const wt = join(o.cycleDir, 'wt');
  // The agent may rewrite anything in cycleDir: its worktree and .git must still be the folders
  // abcd made (a symlink would have abcd read, and push, files the sandbox hid), and abcd's own
  // files (the copied objects, the index) go to a folder the agent never saw.
  await assertPlainDir(wt, "the agent's worktree");
  const host = await mkdtemp(`${o.cycleDir}-host-`);
  try {
    return await collectInto(o, wt, host);
  } finally {
    await rm(host, { recursive: true, force: true });
  }
}

async function collectInto(o: Parameters<typeof collectAgentWork>[0], wt: string, host: string): Promise<AgentWork> {
  const quarantine = join(host, 'quarantine');
  const fresh = join(host, 'objects');
  await Promise.all([mkdir(join(quarantine, 'pack'), { recursive: true }), mkdir(fresh)]);
  // What abcd reads and writes while taking the work: the lane store and the agent's copies,
  // new objects into `fresh`. The lane's own objects (the person's) are out of sight.
  const view = new Git(o.lane.dir, { ...o.env, GIT_DIR: o.laneGitDir });
  const viewEnv = { GIT_OBJECT_DIRECTORY: fresh, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternatesList([o.storeObjects, quarantine]) };
  let base = o.runHead;
  let ignored: string | undefined;
  const named = await assertPlainDir(join(wt, '.git'), "the agent's .git")
    .then(() => readAgentHead(join(wt, '.git')))
    .catch((e: Error) => {
      ignored = e.message;
      return undefined;
    });
  if (named && named !== o.runHead) {
    const why = await takeCommits(view, viewEnv, join(wt, '.git/objects'), quarantine, named, o.runHead);
    if (why) ignored = why;
    else base = named;
  }
  const refuse = (what: string, r: { stderr: string }) => {
    const fsck = gitComplaints(r.stderr);
    return new AgentObjectsRefused(`${what}: ${fsck.join('; ') || 'git gave no reason'}. Nothing of the agent's work landed.`, {
      item: o.item,
      fsck,
    });
  };
  // The trees to compare with are read while the worktree is.
  const trees = view.objects.treesOf([base, o.runHead], { env: viewEnv });
  const snap = await snapshotTree(view, viewEnv, wt, join(host, 'index'), base);
  const treesRead = await trees;
  if (!treesRead.ok) throw refuse("the agent's commits name trees they do not hold", treesRead.failure);
  if (!snap.ok) throw refuse(base === o.runHead ? 'the worktree could not be read' : "the agent's commits are incomplete", snap.failure);
  const [baseTree, runTree] = treesRead.value;
  const head = snap.value !== baseTree ? await commitLeftover(view, viewEnv, o, { tree: snap.value, base }) : base;
  // Commits that end where they began land nothing, so nothing of them is checked or taken.
  const changed = head !== o.runHead && snap.value !== runTree;
  if (changed) {
    await assertWithinLimits(view, viewEnv, { from: o.runHead, to: head, item: o.item, limits: o.limits });
    // One pack of everything new, built from the view, checked object by object as it enters
    // the lane's repository (as a fetch with fsckObjects would).
    const pack = await view.packs.packObjects([head], [o.runHead], { env: viewEnv });
    if (!pack.ok) throw refuse("the agent's commits are incomplete", pack.failure);
    const idx = await o.lane.packs.indexPack(pack.value, { strict: true, fixThin: true });
    if (!idx.ok) throw refuse("git's strict checks refused the agent's work", idx.failure);
  }
  return { ...(changed ? { head } : {}), ...(base !== o.runHead ? { agentHead: base } : {}), ...(ignored ? { ignored } : {}) };
}

/** A commit of what the agent left uncommitted (`tree`) on `base`, by abcd's signature at the cycle's time. */
async function commitLeftover(
  view: Git,
  viewEnv: Record<string, string>,
  o: Pick<Parameters<typeof collectAgentWork>[0], 'atMs' | 'who' | 'item'>,
  w: { tree: string; base: string },
): Promise<string> {
  const date = `@${Math.floor(o.atMs / 1000)} +0000`;
  const env = {
    ...viewEnv,
    GIT_AUTHOR_NAME: o.who.name,
    GIT_AUTHOR_EMAIL: o.who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: o.who.name,
    GIT_COMMITTER_EMAIL: o.who.email,
    GIT_COMMITTER_DATE: date,
  };
  return view.objects.mustCommitTree({
    tree: w.tree,
    parents: [w.base],
    message: `${o.item}: what the agent left uncommitted\n`,
    env,
  });
}

/** git's error lines (fsck names each object and message id), without its closing "fatal:" summary. */
function gitComplaints(stderr: string): string[] {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('error:') || l.startsWith('warning:'));
  return (errors.length ? errors : lines.slice(-1)).slice(0, 8).map((l) => sanitizeLine(l, 300));
}

/** The commit the agent's HEAD names, read from its files (a symref one level deep, loose or packed). */
async function readAgentHead(gitDir: string): Promise<string | undefined> {
  const head = (await readRegular(join(gitDir, 'HEAD'))).trim();
  if (OID.test(head)) return head;
  const m = /^ref: (refs\/heads\/\S+)$/.exec(head);
  if (!m || !isRefSafe(m[1]!)) throw new Error("the agent's HEAD is neither a commit nor a branch");
  const ref = m[1]!;
  // No loose file (the ref is packed) or not a plain file: either way it names nothing, and packed-refs is read.
  const loose = await readRegular(join(gitDir, ref)).catch(unlessUnreadable(undefined));
  if (loose !== undefined) {
    if (!OID.test(loose.trim())) throw new Error(`the agent's ${ref} does not hold a commit id`);
    return loose.trim();
  }
  // No packed-refs (or not a plain file): no packed ref, and the branch is unborn.
  const packed = await readRegular(join(gitDir, 'packed-refs')).catch(unlessUnreadable(''));
  for (const line of packed.split('\n')) {
    const [oid, name] = line.split(' ');
    if (name === ref && oid && OID.test(oid)) return oid;
  }
  return undefined; // an unborn branch: nothing committed
}

/** Refuses anything but a real directory at `path` (a symlink to one included). */
async function assertPlainDir(path: string, what: string): Promise<void> {
  // Gone or unreadable is refused below, the same as replaced.
  const st = await lstat(path).catch(unlessSystemError(undefined));
  if (!st?.isDirectory())
    throw new Error(
      `${what} is no longer a plain folder (${st?.isSymbolicLink() ? 'a symlink' : 'gone or replaced'}); nothing of it was taken`,
    );
}

// A file the agent wrote is read only when it is a plain file of sane size (no symlink, fifo).
const MAX_META_BYTES = 1 << 20;
class NotPlainFile extends Error {}
async function readRegular(path: string): Promise<string> {
  const st = await lstat(path);
  if (!st.isFile() || st.size > MAX_META_BYTES) throw new NotPlainFile(`${path} is not a plain file`);
  return readFile(path, 'utf8');
}

/** For a read of the agent's files: one that is not a plain file, or a system call that fails on it (gone, unreadable), is `fallback`; a bug is thrown on. */
function unlessUnreadable<T>(fallback: T): (e: unknown) => T {
  return (e) => (e instanceof NotPlainFile ? fallback : unlessSystemError(fallback)(e));
}

/**
 * Copies the agent's own object files (loose and packs; never info/alternates, never a
 * symlink) into the quarantine and checks that its head descends from the run head. Returns
 * why its commits cannot be used, or undefined. Their objects are checked later, with the rest.
 */
async function takeCommits(
  view: Git,
  env: Record<string, string>,
  objects: string,
  quarantine: string,
  head: string,
  runHead: string,
): Promise<string | undefined> {
  try {
    await copyPlainObjects(objects, quarantine);
  } catch (e) {
    return `the agent's object store could not be read as plain files (${(e as Error).message})`;
  }
  if (!(await view.refs.isAncestor(runHead, head, { env })))
    return "the agent's HEAD does not descend from the run head; its commits were not used";
  return undefined;
}

async function copyPlainObjects(from: string, to: string): Promise<void> {
  if (!(await lstat(from)).isDirectory()) throw new Error('objects is not a directory');
  await mkdir(join(to, 'pack'), { recursive: true });
  for (const dir of await readdir(from)) {
    const isFan = /^[0-9a-f]{2}$/.test(dir);
    if (!isFan && dir !== 'pack') continue;
    const src = join(from, dir);
    if (!(await lstat(src)).isDirectory()) continue;
    await mkdir(join(to, dir), { recursive: true });
    for (const f of await readdir(src)) {
      const ok = isFan ? /^[0-9a-f]{38}([0-9a-f]{24})?$/.test(f) : /^pack-[0-9a-f]+\.(pack|idx)$/.test(f);
      if (!ok) continue;
      const st = await lstat(join(src, f));
      if (st.isFile()) await copyFile(join(src, f), join(to, dir, f));
    }
  }
}

/**
 * The worktree's content as a tree, read by the lane's git (GIT_DIR set: the agent's .git is
 * never discovered, and git never adds a path named .git) with a private index, its objects
 * written into the view's folder.
 */
async function snapshotTree(view: Git, viewEnv: Record<string, string>, wt: string, index: string, base: string): Promise<Tried<string>> {
  return view.work.snapshot(base, { env: { ...viewEnv, GIT_INDEX_FILE: index, GIT_WORK_TREE: wt } });
}
