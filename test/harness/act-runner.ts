// Runs one session's act as a real abcd process, optionally SIGKILLed after a delay, and
// records what it attempted and how it ended, for test/harness/history.ts to judge.
import { readdir, readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { ABCD_BIN, type Json, type Session } from './session.js';
import { assertAnswerContract } from './answer-contract.js';

/**
 * push-main: `abcd push <item> main`, committing on the clone's main (only land may write main).
 * forge: a stranger with push access writes a request or receipt record straight to the remote
 * (a steer or pending slot in the person's name, a receipt listing what is pending), no abcd.
 */
export type Verb = 'reserve' | 'renew' | 'release' | 'push' | 'push-main' | 'land' | 'takeover' | 'forge';

/** Writes one forged record for the act; says what it wrote. */
export type Forger = (plan: ActPlan, index: number) => Promise<string>;

export interface ActPlan {
  session: number;
  verb: Verb;
  item: string;
  /** Delay after the previous act was dispatched (acts of different sessions overlap). */
  gapMs: number;
  /** SIGKILL the abcd process this long after it started. */
  killAfterMs?: number;
  /** reserve/takeover only: the claim's ttl. */
  ttl?: string;
}

export interface ActRecord {
  index: number;
  session: string;
  verb: Verb;
  item: string;
  killAfterMs?: number;
  args: string[];
  /** Test clock (same machine as abcd's) around the process's life. */
  startedAt: number;
  endedAt: number;
  /** The exit code, or 'killed' when our SIGKILL ended it. */
  exit: number | 'killed';
  json: Json;
  /** push/land: the work branch and the head it pushed, and the file unique to this act. */
  branch?: string;
  head?: string;
  file?: string;
  /** push/land: every act file on the branch up to this act's head. */
  branchFiles?: string[];
  stderrTail: string;
}

/** A killed abcd's git children live on; how long we wait for them before the session's next act. */
const ORPHAN_DRAIN_MS = 15_000;
// Not a hang: a takeover waits at most its --wait, a land its --wait, plus start-up on a loaded machine.
const ACT_TIMEOUT_MS = 60_000;

/** A session's local work: one branch per item, renewed after each landing. */
export class SessionWork {
  private readonly branches = new Map<string, { name: string; files: string[] }>();
  private landed = new Map<string, number>();
  constructor(
    readonly session: Session,
    private readonly base: string,
  ) {}

  /** Checks out the item's work branch and commits a file unique to the act. */
  async commitFor(item: string, index: number, onMain = false): Promise<{ branch: string; head: string; file: string; files: string[] }> {
    const key = onMain ? ' main' : item;
    let b = this.branches.get(key);
    if (!b) {
      b = { name: onMain ? 'main' : `work/${item}-${this.session.name}-${this.landed.get(item) ?? 0}`, files: [] };
      this.branches.set(key, b);
      await this.session.git(['checkout', '-q', '-B', b.name, this.base]);
    } else {
      await this.session.git(['checkout', '-q', b.name]);
    }
    const file = `act-${String(index).padStart(2, '0')}-${this.session.name}.txt`;
    const head = await this.session.commit(file, `act ${index} by ${this.session.name} on ${item}\n`, `act ${index}: ${item}`);
    b.files.push(file);
    return { branch: b.name, head, file, files: [...b.files] };
  }

  /** After a landing the session starts the item's next work on a fresh branch. */
  startAfresh(item: string): void {
    this.branches.delete(item);
    this.landed.set(item, (this.landed.get(item) ?? 0) + 1);
  }
}

export function argsFor(plan: ActPlan, branch: string | undefined, waits: { takeover: string; land: string }): string[] {
  const ttl = plan.ttl ? ['--ttl', plan.ttl] : [];
  switch (plan.verb) {
    case 'reserve':
      return ['reserve', plan.item, ...ttl, '--json'];
    case 'takeover':
      return ['reserve', plan.item, ...ttl, '--wait', waits.takeover, '--json'];
    case 'renew':
    case 'release':
      return [plan.verb, plan.item, '--json'];
    case 'push':
    case 'push-main':
      return ['push', plan.item, branch!, '--json'];
    case 'land':
      return ['land', plan.item, branch!, '--wait', waits.land, '--json'];
    case 'forge':
      return ['(forged)', plan.item, '--json'];
  }
}

/** Runs one act to its end (or its kill, once the git processes it left have ended). */
export async function runAct(
  work: SessionWork,
  plan: ActPlan,
  o: { index: number; waits: { takeover: string; land: string }; forge?: Forger },
): Promise<ActRecord> {
  const s = work.session;
  if (plan.verb === 'forge') {
    const startedAt = Date.now();
    const what = await o.forge!(plan, o.index);
    return {
      index: o.index,
      session: 'stranger',
      verb: 'forge',
      item: plan.item,
      args: ['forge', what, '--json'],
      startedAt,
      endedAt: Date.now(),
      exit: 0,
      json: {},
      stderrTail: '',
    };
  }
  const commits = plan.verb === 'push' || plan.verb === 'push-main' || plan.verb === 'land';
  const attempt = commits ? await work.commitFor(plan.item, o.index, plan.verb === 'push-main') : undefined;
  const args = argsFor(plan, attempt?.branch, o.waits);
  // abcd passes its environment to git (each git in its own process group): this marker finds
  // the git processes a killed abcd left running.
  const marker = `${process.pid}-${++actsStarted}`;
  const startedAt = Date.now();
  const child = execa(process.execPath, [ABCD_BIN, ...args], {
    cwd: s.dir,
    env: { ...s.env, ABCD_MODEL_ACT: marker },
    extendEnv: false,
    reject: false,
    timeout: ACT_TIMEOUT_MS,
  });
  let killed = false;
  const timer =
    plan.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          if (child.exitCode !== null || child.pid === undefined) return;
          try {
            process.kill(child.pid, 'SIGKILL');
            killed = true;
          } catch {
            // already gone: it ended on its own
          }
        }, plan.killAfterMs);
  const r = await child;
  clearTimeout(timer);
  if (killed) await drainOrphans(marker);
  const endedAt = Date.now();
  const stdout = String(r.stdout ?? '');
  let json: unknown;
  try {
    json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    json = undefined;
  }
  const exit = killed && r.signal === 'SIGKILL' ? 'killed' : (r.exitCode ?? -1);
  // Every answer of the model's acts keeps the published contract too (a killed act has none).
  if (exit !== 'killed') assertAnswerContract(args, exit, json);
  if (plan.verb === 'land' && exit === 0) work.startAfresh(plan.item);
  return {
    index: o.index,
    session: s.name,
    verb: plan.verb,
    item: plan.item,
    ...(plan.killAfterMs !== undefined ? { killAfterMs: plan.killAfterMs } : {}),
    args,
    startedAt,
    endedAt,
    exit,
    json,
    ...(attempt ? { branch: attempt.branch, head: attempt.head, file: attempt.file, branchFiles: attempt.files } : {}),
    stderrTail: String(r.stderr ?? '').slice(-400),
  };
}

let actsStarted = 0;

/** Waits until no process carrying the act's marker is left (the git children of a killed abcd). */
async function drainOrphans(marker: string): Promise<void> {
  const needle = `ABCD_MODEL_ACT=${marker}\0`;
  const until = Date.now() + ORPHAN_DRAIN_MS;
  while (Date.now() < until) {
    if (!(await anyProcessWith(needle))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`processes of a killed abcd (marker ${marker}) still ran ${ORPHAN_DRAIN_MS} ms after its SIGKILL`);
}

async function anyProcessWith(needle: string): Promise<boolean> {
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  for (const pid of pids) {
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (environ.includes(needle)) return true;
  }
  return false;
}

/** Dispatches the acts in order, `gapMs` apart; each session runs its own acts one after another. */
export async function runInterleaved(
  works: SessionWork[],
  plans: ActPlan[],
  waits: { takeover: string; land: string },
  forge?: Forger,
): Promise<ActRecord[]> {
  const chains: Promise<void>[] = works.map(() => Promise.resolve());
  const records: ActRecord[] = [];
  for (const [index, plan] of plans.entries()) {
    await new Promise((r) => setTimeout(r, plan.gapMs));
    const w = works[plan.session]!;
    chains[plan.session] = chains[plan.session]!.then(async () => {
      records[index] = await runAct(w, plan, { index, waits, ...(forge ? { forge } : {}) });
    });
  }
  await Promise.all(chains);
  return records;
}

/** One line per act: who did what, and how it ended. */
export function describeActs(acts: ActRecord[]): string {
  return acts
    .map((a) => {
      const kill = a.killAfterMs !== undefined ? ` kill@${a.killAfterMs}ms` : '';
      const r = a.json?.refusal;
      const answer =
        a.exit === 'killed' ? 'killed' : r ? `exit ${a.exit} ${r.code}${r.data?.outcome ? `/${r.data.outcome}` : ''}` : `exit ${a.exit}`;
      const tip = a.json?.tip ?? a.json?.claimTip;
      const what = a.head ? ` head ${a.head.slice(0, 8)} on ${a.branch}` : '';
      const odd = typeof a.exit === 'number' && a.exit !== 0 && !r ? ` stderr: ${a.stderrTail.replace(/\s+/g, ' ')}` : '';
      return `#${a.index} ${a.session} ${a.args.slice(0, -1).join(' ')}${kill} [${a.startedAt % 100000}-${a.endedAt % 100000}]${what} -> ${answer}${tip ? ` tip ${String(tip).slice(0, 8)}` : ''}${odd}`;
    })
    .join('\n');
}
