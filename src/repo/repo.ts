// Opening a repository: the git client, the record store, the forge and this session.
import { isAbsolute, join, resolve } from 'node:path';
import type { Deps } from '../core/deps.js';
import { HeldMemory } from './held.js';
import { sessionId } from './session.js';
import { Sightings } from './sightings.js';
import type { Holder } from '../records/holder.js';
import { UsageError } from '../core/refusals.js';
import { Git } from '../git/git.js';
import type { Signature } from '../records/objects.js';
import type { ObjectStore } from '../git/object-writer.js';
import { RecordStore } from '../records/store.js';
import type { Forge, ForgeTokens } from '../forges/forge.js';
import { detectForge } from '../forges/registry.js';
import { readCloneFromFiles } from '../git/files/clone-read.js';
import { buildId } from '../core/build-id.js';

// A network git call that takes longer than this is treated as a dead remote (exit 8);
// ABCD_NETWORK_TIMEOUT overrides it. A verb with a deadline (--wait) shortens it to the time
// left (withNetworkDeadline): every wait ends by its deadline plus a short grace, whatever the
// network does (ADR 0016). There is no floor: a deadline is the person's, not the network's.
const NETWORK_TIMEOUT_MS = 30_000;

/** Everything a verb needs about the clone it runs in. */
export interface Repo {
  readonly deps: Deps;
  readonly git: Git;
  readonly store: RecordStore;
  readonly gitDir: string;
  readonly commonDir: string;
  readonly me: Holder;
  readonly author: Signature;
  /** Where abcd writes record objects itself; absent where only git may write (ADR 0037). */
  readonly objects?: ObjectStore;
  readonly sightings: Sightings;
  readonly held: HeldMemory;
  /** The forge the remote is on (forges/registry.ts): a plain git remote, or GitHub. */
  readonly forge: Forge;
  /** abcd's App token on a forge where the person set one up (abcd setup-app). */
  readonly tokens?: ForgeTokens;
}

/**
 * The same repository whose network git calls end by `untilMs` where they can (a verb's
 * deadline); a refusal names the wait as `untilMs - startedAt` (the verb's own start, so exactly
 * its --wait). A new value, never a change to `repo`: a lane beside this one keeps its own time.
 */
export function withNetworkDeadline(repo: Repo, untilMs: number, startedAt: number = repo.deps.clock.now()): Repo {
  return { ...repo, store: repo.store.until(untilMs, startedAt) };
}

/** The same repository with git's full network timeout on every call, whatever deadline it had. */
export function withoutNetworkDeadline(repo: Repo): Repo {
  return repo.store.deadline ? { ...repo, store: repo.store.unbounded() } : repo;
}

/**
 * Opens the clone at deps.cwd: two local git calls, no network. `prefetch`: the verb's first
 * act is a read of the records, so their fetch starts as soon as the clone is open, while the
 * verb's own modules load (its first readSnapshot waits for that fetch).
 */
export async function openRepo(deps: Deps, o: { prefetch?: boolean } = {}): Promise<Repo> {
  const probe = new Git(deps.cwd, deps.env);
  const { gitDir, commonDir, objectsDir, format, values, plain } = await openDirs(probe, deps);
  // A plain clone's refs and loose objects are read from its files (ADR 0138); others ask git.
  const plainLog = !values.has('i18n.commitencoding') && !values.has('i18n.logoutputencoding');
  const git = plain ? new Git(deps.cwd, deps.env, { files: { commonDir, objectsDir, plainLog } }) : probe;
  const email = values.get('user.email');
  if (!email) {
    throw new UsageError('git user.email is not set; abcd names the person by it. Run: git config user.email you@example.com', 'identity');
  }
  // The person's name in every record: one printable line a record's schema accepts.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (email.length > 254 || /[\u0000-\u001f\u007f]/.test(email)) {
    throw new UsageError(
      `git user.email is not usable as your name in abcd's records (${email.length > 254 ? 'over 254 characters' : 'it holds control characters'}). ` +
        'Set a plain address: git config user.email you@example.com',
      'identity',
      { setting: 'user.email' },
    );
  }
  if (!values.get(`remote.${deps.remote}.url`)) {
    throw new UsageError(`this clone has no remote named "${deps.remote}": add it or pass --remote <name>.`, 'remote', {
      remote: deps.remote,
    });
  }
  const session = await sessionId(deps.config.session, gitDir);
  const abcdDir = join(commonDir, 'abcd');
  const forge = detectForge(values.get(`remote.${deps.remote}.url`), deps.config.githubHosts);
  const { tokens, auth } = await forge.credentials(deps);
  const store = new RecordStore(git, deps.remote, {
    capMs: deps.config.networkTimeoutMs() ?? NETWORK_TIMEOUT_MS,
    now: () => deps.clock.now(),
    sleep: (ms) => deps.clock.sleep(ms),
    ...(auth ? { auth } : {}),
    files: { commonDir, tipCache: join(abcdDir, 'record-tips'), objectsDir, ...checkedTips(abcdDir) },
  });
  if (o.prefetch) store.prefetch();
  return {
    deps,
    git,
    store,
    gitDir,
    commonDir,
    me: { person: email, host: deps.config.host, session },
    author: { name: values.get('user.name') || email, email },
    ...objectStore(values, objectsDir, format),
    sightings: new Sightings(join(abcdDir, 'sightings'), deps.clock, deps.config.bootId),
    held: new HeldMemory(join(abcdDir, 'held', session)),
    forge,
    ...(tokens ? { tokens } : {}),
  };
}

/**
 * The clone's git dirs and the config values abcd reads: from the clone's files where they are
 * plain (git/files/clone-read.ts), else from two git processes.
 */
async function openDirs(
  git: Git,
  deps: Deps,
): Promise<{ gitDir: string; commonDir: string; objectsDir: string; format: string; values: Map<string, string>; plain: boolean }> {
  const keys = new RegExp(`^(user\\.(name|email)|remote\\.${escapeRe(deps.remote)}\\.url|${WRITER_KEYS}|${LOG_KEYS})$`);
  const files = await readCloneFromFiles(deps.cwd, deps.env);
  if (files) {
    const values = new Map<string, string>();
    for (const e of files.config) if (keys.test(e.key)) values.set(e.key, e.value);
    return { ...files.dirs, values, plain: true };
  }
  const [dirs, config] = await Promise.all([git.clone.dirs(), git.clone.configMatching(keys.source)]);
  if (!dirs) {
    throw new UsageError(`${deps.cwd} is not inside a git clone: run abcd from a clone of the shared remote.`, 'clone', {
      cwd: deps.cwd,
    });
  }
  const { gitDir, commonDir: common, objects: objectsPath, format } = dirs;
  const commonDir = isAbsolute(common) ? common : resolve(deps.cwd, common);
  return { gitDir, commonDir, objectsDir: resolve(deps.cwd, objectsPath), format, values: parseConfigZ(config), plain: false };
}

// Settings under which git writes objects differently from a plain loose object (group- or
// world-shared permissions, a commit encoding header): with any of them set, git writes.
const WRITER_KEYS = 'core\\.sharedrepository|i18n\\.commitencoding';
// With this set too, git's log re-encodes what it prints: abcd reads a commit's people through git.
const LOG_KEYS = 'i18n\\.logoutputencoding';

function objectStore(values: Map<string, string>, dir: string, format: string): { objects?: ObjectStore } {
  if (values.has('core.sharedrepository') || values.has('i18n.commitencoding')) return {};
  if (format !== 'sha1' && format !== 'sha256') return {};
  return { objects: { dir, format } };
}

function parseConfigZ(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const nl = entry.indexOf('\n');
    if (nl > 0) out.set(entry.slice(0, nl), entry.slice(nl + 1));
    // A key with no "=" (a bare boolean, true) comes without a newline.
    else if (nl < 0 && entry !== '') out.set(entry, '');
  }
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where this build keeps the record tips it checked; none when it has no name (a run from the sources). */
function checkedTips(abcdDir: string): { checked?: { path: string; build: string } } {
  const build = buildId();
  return build ? { checked: { path: join(abcdDir, 'record-checked'), build } } : {};
}
