// Judges a model-race run from the bare remote's history: each claim ref's first-parent chain
// (record.json per commit), main, and the work branches, against what each act attempted and
// answered (test/harness/act-runner.ts). Returns violations as sentences; empty means it held.
import { execa } from 'execa';
import type { ActRecord } from './act-runner.js';

const CLAIMS = 'refs/heads/abcd/claims/';
const MAIN = 'refs/heads/main';
/** Exit codes of the refusals these acts can meet. */
const DOCUMENTED_REFUSALS = new Set([3, 4, 5, 8]);

export interface ClaimView {
  abcd: string;
  state: 'held' | 'released' | 'done';
  holder: { person: string; host: string; session: string };
  gen: number;
  at: number;
  ttl: number;
  branch?: string;
  head?: string;
  landed?: { main: string; tip: string };
}

export interface Generation {
  commit: string;
  record?: ClaimView;
  error?: string;
}

export interface KnownBreaks {
  /**
   * Issue 7 item 8: after a `kill -9` of an act that had in fact completed (a release, a land),
   * the session's next act answers exit 5 "moved on" naming this session itself as the holder.
   */
  ownGeneration: boolean;
  /**
   * Issue 7 item 1: `abcd push <item> main` moves the remote's main (and, leasing on the head its
   * claim recorded, can force it back over another session's landing). Only land may write main.
   */
  pushMovesMain: boolean;
}

export interface RemoteRepo {
  dir: string;
  env: Record<string, string>;
}

async function git(r: RemoteRepo, args: string[], input?: string) {
  return execa('git', ['-C', r.dir, ...args], { env: r.env, extendEnv: false, reject: false, ...(input !== undefined ? { input } : {}) });
}

/** Every claim ref's first-parent history, oldest first, each commit's record.json decoded. */
export async function readClaimHistories(r: RemoteRepo): Promise<Map<string, Generation[]>> {
  const refs = (await git(r, ['for-each-ref', '--format=%(refname)', CLAIMS])).stdout.split('\n').filter(Boolean);
  const out = new Map<string, Generation[]>();
  for (const ref of refs) {
    const commits = (await git(r, ['rev-list', '--first-parent', '--reverse', ref])).stdout.split('\n').filter(Boolean);
    const blobs = await readBlobs(
      r,
      commits.map((c) => `${c}:record.json`),
    );
    out.set(
      ref,
      commits.map((commit, i) => decodeGeneration(commit, blobs[i])),
    );
  }
  return out;
}

async function readBlobs(r: RemoteRepo, specs: string[]): Promise<Array<string | undefined>> {
  if (!specs.length) return [];
  const res = await execa('git', ['-C', r.dir, 'cat-file', '--batch'], {
    env: r.env,
    extendEnv: false,
    input: specs.join('\n') + '\n',
    encoding: 'buffer',
  });
  const buf = Buffer.from(res.stdout as Uint8Array);
  const blobs: Array<string | undefined> = [];
  let pos = 0;
  for (let i = 0; i < specs.length; i++) {
    const nl = buf.indexOf(10, pos);
    const header = buf.subarray(pos, nl).toString();
    pos = nl + 1;
    const m = /^[0-9a-f]+ \w+ (\d+)$/.exec(header);
    if (!m) {
      blobs.push(undefined);
      continue;
    }
    const size = Number(m[1]);
    blobs.push(buf.subarray(pos, pos + size).toString('utf8'));
    pos += size + 1;
  }
  return blobs;
}

function decodeGeneration(commit: string, blob: string | undefined): Generation {
  if (blob === undefined) return { commit, error: 'no record.json in the commit' };
  try {
    const c = JSON.parse(blob) as ClaimView;
    const ok =
      c.abcd === 'claim' &&
      ['held', 'released', 'done'].includes(c.state) &&
      Number.isInteger(c.gen) &&
      Number.isInteger(c.at) &&
      Number.isInteger(c.ttl) &&
      typeof c.holder?.session === 'string';
    return ok ? { commit, record: c } : { commit, error: `not a claim record: ${blob.slice(0, 200)}` };
  } catch (e) {
    return { commit, error: `not JSON (${(e as Error).message}): ${blob.slice(0, 200)}` };
  }
}

function itemOf(ref: string): string {
  return ref.split('/').at(-1)!;
}

/** Refused: a documented "nothing changed" answer (exit 8 with an unknown outcome promises nothing). */
export function isRefused(a: ActRecord): boolean {
  if (typeof a.exit !== 'number' || a.exit === 0) return false;
  return !(a.exit === 8 && a.json?.refusal?.data?.outcome === 'unknown');
}

/** The act of the writing session whose process was alive when the generation's `at` was taken. */
function actWriting(acts: ActRecord[], item: string, c: ClaimView): ActRecord | undefined {
  return acts.find((a) => a.session === c.holder.session && a.item === item && a.startedAt <= c.at && c.at <= a.endedAt);
}

/**
 * Never two sessions acting under one claim: generations strictly increase; a write by S after a
 * held generation of T != S is a takeover after T's expiry plus the delay; every generation was
 * written by a live act of its holder, of the verb that writes that state, and no refused act wrote.
 */
export function checkGenerations(ref: string, gens: Generation[], acts: ActRecord[], delayMs: number): string[] {
  const v: string[] = [];
  const item = itemOf(ref);
  let prev: ClaimView | undefined;
  for (const g of gens) {
    const c = g.record;
    if (!c) {
      v.push(`${ref} ${g.commit.slice(0, 8)}: the record does not decode: ${g.error}`);
      prev = undefined;
      continue;
    }
    const who = `${ref} gen ${c.gen} (${g.commit.slice(0, 8)}, ${c.state} by ${c.holder.session} at ${c.at % 100000})`;
    if (prev && c.gen <= prev.gen) v.push(`${who}: generation does not increase after gen ${prev.gen}`);
    if (prev && prev.state === 'held' && prev.holder.session !== c.holder.session) {
      const takeableAt = prev.at + prev.ttl + delayMs;
      if (c.state !== 'held') v.push(`${who}: wrote ${c.state} over ${prev.holder.session}'s held gen ${prev.gen}`);
      if (c.at < takeableAt) {
        v.push(
          `${who}: took over ${prev.holder.session}'s gen ${prev.gen} at ${c.at % 100000}, before its expiry plus delay ${takeableAt % 100000}`,
        );
      }
    }
    const act = actWriting(acts, item, c);
    if (!act) v.push(`${who}: no act of ${c.holder.session} on ${item} was running when it was written`);
    else {
      const writes = act.verb === 'release' ? ['released'] : act.verb === 'land' ? ['held', 'done'] : ['held'];
      if (!writes.includes(c.state)) v.push(`${who}: written during #${act.index} ${act.verb}, which never writes ${c.state}`);
      if (isRefused(act) && (act.verb !== 'land' || c.state === 'done')) {
        v.push(`${who}: written by #${act.index} ${act.verb}, which was refused (exit ${act.exit})`);
      }
    }
    prev = c;
  }
  return v;
}

/** Facts about main and the work branches, read once. */
export interface RemoteFacts {
  claims: Map<string, Generation[]>;
  /** act file → commits on main's history that touch it. */
  onMain: Map<string, number>;
  mainTip: string;
  /** main's first-parent chain, newest first: each commit and the act files it added. */
  mainChain: Array<{ commit: string; added: string[] }>;
  isAncestor(a: string, b: string): Promise<boolean>;
  refsContaining(commit: string): Promise<string[]>;
  refTip(ref: string): Promise<string | undefined>;
}

export async function readRemoteFacts(r: RemoteRepo): Promise<RemoteFacts> {
  const claims = await readClaimHistories(r);
  const mainTip = (await git(r, ['rev-parse', MAIN])).stdout.trim();
  const log = (await git(r, ['log', '--format=', '--name-only', mainTip, '--', 'act-*'])).stdout.split('\n').filter(Boolean);
  const onMain = new Map<string, number>();
  for (const f of log) onMain.set(f, (onMain.get(f) ?? 0) + 1);
  const chain = (await git(r, ['log', '--first-parent', '--diff-filter=A', '--format=%x01%H', '--name-only', mainTip])).stdout;
  const mainChain = chain
    .split('\x01')
    .filter(Boolean)
    .map((block) => {
      const [commit, ...files] = block.split('\n').filter(Boolean);
      return { commit: commit!, added: files.filter((x) => x.startsWith('act-')) };
    });
  return {
    claims,
    onMain,
    mainTip,
    mainChain,
    isAncestor: async (a, b) => (await git(r, ['merge-base', '--is-ancestor', a, b])).exitCode === 0,
    refsContaining: async (c) =>
      (await git(r, ['for-each-ref', '--format=%(refname)', '--contains', c])).stdout.split('\n').filter(Boolean),
    refTip: async (ref) => {
      const t = await git(r, ['rev-parse', '--verify', '-q', ref]);
      return t.exitCode === 0 ? t.stdout.trim() : undefined;
    },
  };
}

/** Every act's answer against the remote: exit 0 is visible, a refusal changed nothing. */
export async function checkAnswers(acts: ActRecord[], f: RemoteFacts, known: KnownBreaks): Promise<string[]> {
  const v: string[] = [];
  for (const a of acts) {
    const say = (s: string) => v.push(`#${a.index} ${a.session} ${a.verb} ${a.item}: ${s}`);
    const gens = f.claims.get(`${CLAIMS}local/item/${a.item}`) ?? [];
    const gen = (tip: unknown) => gens.find((g) => g.commit === tip);
    if (a.exit === 'killed') continue;
    if (a.exit === 0) {
      const tip = a.json?.claimTip ?? a.json?.tip;
      if (a.json?.ok !== true) say(`exit 0 without an ok answer: ${JSON.stringify(a.json)}`);
      if (a.verb !== 'land') {
        const g = gen(tip);
        if (!g) say(`exit 0 but its generation ${String(tip).slice(0, 8)} is not in the claim's history`);
        else if (g.record?.holder.session !== a.session) say(`exit 0 but its generation names ${g.record?.holder.session}`);
      }
      if (a.verb === 'push-main' && !known.pushMovesMain) say('exit 0: push wrote main (only land may write main)');
      // A later push of main may have forced main back over this work (the known break).
      const erasedByPush = known.pushMovesMain && acts.some((b) => b.verb === 'push-main' && b.endedAt > a.startedAt && !isRefused(b));
      if (a.verb === 'push' && !erasedByPush) {
        if (a.json?.head !== a.head) say(`pushed head ${a.json?.head} but the branch head was ${a.head}`);
        const branchTip = await f.refTip(`refs/heads/${a.branch}`);
        const visible = (branchTip && (await f.isAncestor(a.head!, branchTip))) || (f.onMain.get(a.file!) ?? 0) > 0;
        if (!visible) say(`exit 0 but head ${a.head!.slice(0, 8)} is neither on ${a.branch} nor landed on main`);
      }
      if (a.verb === 'land' && !erasedByPush) {
        if (!(await f.isAncestor(a.json?.tip, f.mainTip))) say(`exit 0 but its tip ${String(a.json?.tip).slice(0, 8)} is not on main`);
        if (!gens.some((g) => g.record?.state === 'done' && g.record.landed?.tip === a.json?.tip))
          say('exit 0 but no done generation names its tip');
        for (const file of a.branchFiles ?? []) {
          const n = f.onMain.get(file) ?? 0;
          if (n !== 1) say(`exit 0 but main has ${file} from ${n} commits, not exactly one`);
        }
      }
      continue;
    }
    // A fixed push may call main a usage error (exit 2): it is one either way.
    if (!DOCUMENTED_REFUSALS.has(a.exit) && !(a.verb === 'push-main' && a.exit === 2)) {
      say(`exit ${a.exit}, not a documented refusal (3, 4, 5, 8): ${a.json?.refusal?.message ?? a.stderrTail}`);
      continue;
    }
    if (!isRefused(a)) continue;
    // A later act of the session on the same branch that did not refuse carries this head on.
    const carried = acts.some((b) => b.index > a.index && b.session === a.session && b.branch === a.branch && !isRefused(b));
    if ((a.verb === 'push' || a.verb === 'push-main') && !carried) {
      const refs = await f.refsContaining(a.head!);
      if (refs.length) say(`refused (exit ${a.exit}) yet its head ${a.head!.slice(0, 8)} is on the remote: ${refs.join(', ')}`);
    }
    if (a.verb === 'land' && !carried && (f.onMain.get(a.file!) ?? 0) > 0)
      say(`refused (exit ${a.exit}) yet its work ${a.file} is on main`);
    if (a.exit === 5) {
      const d = a.json?.refusal?.data ?? {};
      const holder: string | undefined = d.holder ?? gen(d.actual)?.record?.holder.session;
      const own = holder !== undefined && (holder === a.session || holder.endsWith(`/${a.session}`));
      const afterKill = acts.some((b) => b.index < a.index && b.session === a.session && b.item === a.item && b.exit === 'killed');
      if (own && !(known.ownGeneration && afterKill)) say(`fenced (exit 5) by its own generation: ${a.json?.refusal?.message}`);
    }
  }
  for (const [file, n] of f.onMain) if (n > 1) v.push(`main has ${file} from ${n} commits: work landed more than once`);
  v.push(...checkMainWriters(acts, f, known));
  return v;
}

/** Only land writes main: every act file main's first-parent chain added came with a landing that did not refuse. */
export function checkMainWriters(acts: ActRecord[], f: Pick<RemoteFacts, 'mainChain'>, known: KnownBreaks): string[] {
  const v: string[] = [];
  const carriedBy = (verb: string, file: string) => acts.find((a) => a.verb === verb && !isRefused(a) && a.branchFiles?.includes(file));
  for (const { commit, added } of f.mainChain) {
    for (const file of added) {
      if (carriedBy('land', file)) continue;
      const push = carriedBy('push-main', file);
      if (push && known.pushMovesMain) continue;
      v.push(
        `main ${commit.slice(0, 8)} added ${file}${push ? `, pushed by #${push.index} push ${push.item} main` : ''}, which no landing carried`,
      );
    }
  }
  return v;
}

/** All of a run's violations. */
export async function checkHistory(acts: ActRecord[], r: RemoteRepo, o: { delayMs: number; known: KnownBreaks }): Promise<string[]> {
  const facts = await readRemoteFacts(r);
  const v: string[] = [];
  for (const [ref, gens] of facts.claims) v.push(...checkGenerations(ref, gens, acts, o.delayMs));
  v.push(...(await checkAnswers(acts, facts, o.known)));
  return v;
}
