// Guards on a push from what the remote advertises: refuse before sending what it would refuse.
import { randomBytes } from '../core/builtins.js';
import { existsSync } from 'node:fs';
import { access, constants, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Lets a push go out only if the remote's record refs, as the push itself sees them in the
 * ref advertisement just before it sends anything, still support a decision made from this
 * clone's cache (ADR 0039). git's pre-push hook runs after the advertisement arrives and
 * before any object is sent; a hook that fails stops the push with nothing sent. The hook reads
 * the advertisement from git's packet trace (GIT_TRACE_PACKET) and fails closed on anything it
 * cannot read.
 */
export interface PushGuard {
  /** git options for the push (its own hooks directory: no other hook runs). */
  args: string[];
  env: Record<string, string>;
  /** The hook stopped the push: the remote's records differ from the cache beyond the slack. */
  declined(): boolean;
  /**
   * The hook ran: the advertisement arrived. A push whose hook never ran sent nothing (git runs
   * pre-push before it sends any command or object), so its outcome is "unchanged".
   */
  ran(): boolean;
  cleanup(): Promise<void>;
}

export interface GuardRule {
  /** The cached tip of each record ref under `prefix` (ref → oid). */
  cached: ReadonlyMap<string, string>;
  /** Refs that must be exactly as cached (absent when absent from `cached`). */
  exact: readonly string[];
  /** Refs under this prefix may differ from the cache in at most `slack` places. */
  prefix: string;
  slack: number;
  /** Refs the push itself leases (their own lease decides them). */
  leased: readonly string[];
}

// One awk program: the cache first (file 1), then the trace (file 2). A ref line the client
// received ("push<" over ssh and file://, "git<" over smart HTTP) is "<oid> <ref>[\0caps]".
const AWK = `
FNR == NR { cached[$2] = $1; next }
/ packet: +(push|git)< [0-9a-f]+ / {
  line = $0; sub(/.* packet: +(push|git)< /, "", line); split(line, f, " "); oid = f[1]; ref = f[2]; sub(/\\\\0.*$/, "", ref)
  if (length(oid) != 40 && length(oid) != 64) next
  seen = 1
  if (ref in leased) next
  if (ref in exact) { if (cached[ref] != oid) bad = 1; exactSeen[ref] = 1; next }
  if (index(ref, prefix) == 1 && cached[ref] != oid) changed++
}
END {
  if (!seen || bad) exit 1
  for (r in exact) if (!(r in exactSeen) && cached[r] != "") exit 1
  if (changed > slack) exit 1
  exit 0
}`;

/**
 * Writes the hook and its inputs under `dir` (this clone's abcd directory). undefined where git
 * would not run it (a noexec mount): git skips a hook it cannot execute, and the push would
 * go out unguarded.
 */
export async function makePushGuard(dir: string, rule: GuardRule): Promise<PushGuard | undefined> {
  const home = join(dir, `push-guard-${process.pid}-${randomBytes(4).toString('hex')}`);
  const hooks = join(home, 'hooks');
  await mkdir(hooks, { recursive: true });
  const cachedFile = join(home, 'cached');
  const trace = join(home, 'trace');
  const declinedFile = join(home, 'declined');
  const ranFile = join(home, 'ran');
  const lines = [...rule.cached].map(([ref, oid]) => `${oid} ${ref}\n`).join('');
  await writeFile(cachedFile, lines || '0 -\n');
  const set = (name: string, refs: readonly string[]) => `BEGIN { ${refs.map((r) => `${name}[${awkString(r)}] = 1;`).join(' ')} }`;
  const program = [set('exact', rule.exact), set('leased', rule.leased), AWK].join('\n');
  await writeFile(join(home, 'guard.awk'), program);
  const hook =
    '#!/bin/sh\n' +
    `: > ${shellQuote(ranFile)}\n` +
    `awk -v prefix=${shellQuote(rule.prefix)} -v slack=${rule.slack} -f ${shellQuote(join(home, 'guard.awk'))} ` +
    `${shellQuote(cachedFile)} ${shellQuote(trace)} && exit 0\n` +
    `: > ${shellQuote(declinedFile)}\nexit 1\n`;
  await writeFile(join(hooks, 'pre-push'), hook, { mode: 0o755 });
  const cleanup = () => rm(home, { recursive: true, force: true });
  // git's own test for a hook (access X_OK), so abcd and git agree on whether it runs.
  const runs = await access(join(hooks, 'pre-push'), constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!runs) {
    await cleanup();
    return undefined;
  }
  return {
    args: ['-c', `core.hooksPath=${hooks}`],
    env: { GIT_TRACE_PACKET: trace },
    declined: () => existsSync(declinedFile),
    ran: () => existsSync(ranFile),
    cleanup,
  };
}

function awkString(s: string): string {
  return `"${s.replace(/[\\"]/g, '\\$&')}"`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
