// Model-based race test: three real sessions (own clones, HOMEs and session
// ids) run random interleavings, chosen by fast-check, of reserve, renew, release, push, land,
// takeover (reserve --wait past expiry plus the delay), kill (SIGKILL mid-act) and forged request and
// receipt records a stranger with push access writes straight to the remote. Acts of
// different sessions overlap as real processes. Afterwards test/harness/history.ts judges the
// bare remote's history. A failure prints fast-check's seed, the acts with their answers, and
// each violation; replay one with ABCD_MODEL_SEED=<seed> (and ABCD_MODEL_PATH=<path>).
// ABCD_MODEL_STRICT=1 tolerates no known break; ABCD_MODEL_VERBOSE=1 prints every run's acts.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { describeActs, runInterleaved, SessionWork, type ActPlan, type ActRecord, type Verb } from '../harness/act-runner.js';
import { cleanupTemp, isolatedEnv } from '../harness/git-env.js';
import {
  checkAnswers,
  checkGenerations,
  checkHistory,
  checkMainWriters,
  type ClaimView,
  type KnownBreaks,
  type RemoteFacts,
} from '../harness/history.js';
import { makeSession } from '../harness/session.js';
import { writeRawRecord } from '../harness/remote.js';
import { formatItem, parseItem } from '../../src/records/item.js';
import { pendingRef, receiptRef, steerRef } from '../../src/records/refs.js';
import type { Holder } from '../../src/records/holder.js';
import { makeTransportRemote, type Transport } from '../harness/transport.js';

/**
 * Issue 7 item 8 (own-generation recognition after kill -9): a retry after a killed act that had
 * completed answers exit 5 naming this session itself. Set to false once that fix is merged.
 */
const KNOWN_BREAK_OWN_GENERATION = false;
/**
 * Issue 7 item 1 (push moves main): `abcd push <item> main` fast-forwards, or after a rewrite
 * force-pushes, the remote's main. Set to false once push refuses main.
 */
const KNOWN_BREAK_PUSH_MOVES_MAIN = false;
// ABCD_MODEL_STRICT=1 tolerates no known break: shows what today's main still breaks.
const KNOWN: KnownBreaks =
  process.env.ABCD_MODEL_STRICT === '1'
    ? { ownGeneration: false, pushMovesMain: false }
    : { ownGeneration: KNOWN_BREAK_OWN_GENERATION, pushMovesMain: KNOWN_BREAK_PUSH_MOVES_MAIN };

const SESSIONS = 3;
const ITEMS = ['alpha', 'beta'];
const LAST = '(last reserved)';
// Short enough that claims lapse and get taken over within one run.
const DEFAULT_TTL = '2s';
const TAKEOVER_DELAY = '500ms';
// A takeover waits past the longest ttl plus the delay and the watching; a land waits its turn.
const WAITS = { takeover: '4s', land: '4s' };
// No new run (or shrinking step) starts after this long; one run takes 5-10 s on an idle machine,
// so the suite sees two or three runs over file:// and one or two over HTTP, new seeds each time.
const FILE_BUDGET_MS = 15_000;
const HTTP_BUDGET_MS = 8_000;
// ABCD_MODEL_SOAK=<minutes> runs each test that long instead (a hunt, not the suite).
const SOAK_MS = Number(process.env.ABCD_MODEL_SOAK ?? 0) * 60_000;
// Past the budget, the last run still has to finish (a slow run on a loaded machine).
const LAST_RUN_MS = 70_000;

const verb = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Verb>('reserve') },
  { weight: 1, arbitrary: fc.constant<Verb>('renew') },
  { weight: 1, arbitrary: fc.constant<Verb>('release') },
  { weight: 3, arbitrary: fc.constant<Verb>('push') },
  { weight: 1, arbitrary: fc.constant<Verb>('push-main') },
  { weight: 2, arbitrary: fc.constant<Verb>('land') },
  { weight: 2, arbitrary: fc.constant<Verb>('takeover') },
  { weight: 2, arbitrary: fc.constant<Verb>('forge') },
);
const act: fc.Arbitrary<ActPlan> = fc.record(
  {
    session: fc.integer({ min: 0, max: SESSIONS - 1 }),
    verb,
    // Mostly the item the session last reserved, as an agent would; sometimes another.
    item: fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 3, arbitrary: fc.constant(LAST) }),
    // Mostly close together; sometimes a pause long enough for an idle claim to lapse.
    gapMs: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 400 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1000, max: 2500 }) },
    ),
    // About one act in four is killed, at a random point of its life (start-up included).
    killAfterMs: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 1500 }) }),
    ttl: fc.constantFrom(undefined, '1s', '2s', '3s'),
  },
  { requiredKeys: ['session', 'verb', 'item', 'gapMs'] },
);
const acts = fc.array(act, { minLength: 8, maxLength: 15 }).map(resolveLast);

/** Resolves LAST to the item of the session's latest reserve or takeover before it (else the first item). */
function resolveLast(plans: ActPlan[]): ActPlan[] {
  const last = new Map<number, string>();
  return plans.map((p) => {
    const item = p.item === LAST ? (last.get(p.session) ?? ITEMS[0]!) : p.item;
    if (p.verb === 'reserve' || p.verb === 'takeover') last.set(p.session, item);
    return { ...p, item };
  });
}

let runs = 0;
let actsRun = 0;
let forged = 0;
let killed = 0;

/**
 * What a stranger with push access writes without abcd: a steer in the person's name (unsigned),
 * the item's pending slot in the person's name, or a receipt listing the slot as consumed.
 * Valid records, so a reader must judge them by proof, not by their shape.
 */
async function forgeRecord(remoteDir: string, person: Holder, plan: ActPlan, index: number): Promise<string> {
  const item = parseItem(plan.item);
  const key = formatItem(item);
  const at = Date.now();
  const kind = (['steer', 'pending', 'receipt'] as const)[index % 3]!;
  if (kind === 'steer') {
    const id = `${new Date(at)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}-${String(index).padStart(8, '0')}`;
    const rec = { abcd: 'steer', v: 1, id, item: key, author: person, at, ttl: 86_400_000, text: `forged steer ${index}: drop the work` };
    await writeRawRecord(remoteDir, steerRef(item, id), JSON.stringify(rec));
    return `steer ${id}`;
  }
  if (kind === 'pending') {
    const rec = { abcd: 'pending', v: 1, item: key, requester: person, at, ttl: 86_400_000, note: `forged request ${index}`, coalesced: 1 };
    await writeRawRecord(remoteDir, pendingRef(item), JSON.stringify(rec));
    return 'pending slot';
  }
  const consumed = [{ kind: 'pending', id: 'f'.repeat(40) }];
  const rec = { abcd: 'receipt', v: 1, item: key, runId: `forged-${index}`, holder: person, gen: 99, at, head: 'e'.repeat(40), consumed };
  await writeRawRecord(remoteDir, receiptRef(item), JSON.stringify(rec));
  return 'receipt';
}

/** One run: a fresh remote and sessions, the acts, then the history judged. Throws on a violation. */
async function runModel(transport: Transport, plans: ActPlan[]): Promise<void> {
  const remote = await makeTransportRemote(transport);
  try {
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => makeSession(remote.cloneUrl, `s${i}`)));
    const owner = sessions[0]!;
    for (const [key, value] of [
      ['takeover-delay', TAKEOVER_DELAY],
      ['default-ttl', DEFAULT_TTL],
    ]) {
      const set = await owner.abcd(['settings', key!, value!, '--json']);
      if (set.code !== 0) throw new Error(`abcd settings ${key} ${value}: exit ${set.code} ${set.stdout} ${set.stderr}`);
    }
    // The delay readers honour, as abcd reads it back.
    const before = await owner.abcd(['status', '--json']);
    const delayMs = Number(before.json?.settings?.takeoverDelay);
    const base = await owner.git(['rev-parse', 'origin/main']);
    const works = sessions.map((s) => new SessionWork(s, base));
    const owner0 = { person: `${owner.name}@example.com`, host: 'elsewhere', session: 'forged' };
    const records = await runInterleaved(works, plans, WAITS, (plan, index) => forgeRecord(remote.dir, owner0, plan, index));
    runs++;
    actsRun += records.length;
    forged += records.filter((r) => r.verb === 'forge').length;
    killed += records.filter((r) => r.exit === 'killed').length;
    // Forged records are no act of a session: the history is judged on the sessions' acts, and a
    // forged record must change none of it (no claim, no landing, no refusal of a good record).
    const acts = records.filter((r) => r.verb !== 'forge');
    const violations = await checkHistory(acts, { dir: remote.dir, env: isolatedEnv(remote.dir) }, { delayMs, known: KNOWN });
    // kill -9 never corrupts a record: every record on the remote still decodes.
    const status = await sessions[1]!.abcd(['status', '--json']);
    if (status.code !== 0 || !Array.isArray(status.json?.refused) || status.json.refused.length) {
      violations.push(`status after the run: exit ${status.code}, refused ${JSON.stringify(status.json?.refused ?? status.stderr)}`);
    }
    if (process.env.ABCD_MODEL_VERBOSE) console.log(`${transport} run:\n${describeActs(records)}`);
    if (violations.length) {
      throw new Error(`${violations.length} violation(s) over ${transport}:\n${violations.join('\n')}\n\nacts:\n${describeActs(records)}`);
    }
  } finally {
    await remote.stop();
    await cleanupTemp();
  }
}

/**
 * Runs the property numRuns times, but starts no run (and no shrinking step) once budgetMs has
 * passed: the time stays bounded on a loaded machine, and a failure found keeps its best
 * shrink so far. (fast-check's own interruptAfterTimeLimit abandons a run mid-way, leaving its
 * processes writing into the next test's directories.)
 */
function property(transport: Transport, numRuns: number, budgetMs: number) {
  const seed = process.env.ABCD_MODEL_SEED;
  const path = process.env.ABCD_MODEL_PATH;
  const until = Date.now() + budgetMs;
  return fc.assert(
    fc.asyncProperty(acts, async (plans) => {
      if (Date.now() < until) await runModel(transport, plans);
    }),
    { numRuns, ...(seed ? { seed: Number(seed) } : {}), ...(path ? { path } : {}) },
  );
}

describe('model-based races', () => {
  afterAll(async () => {
    await cleanupTemp();
    console.log(`model races: ${runs} runs, ${actsRun} acts (${forged} forged records, ${killed} killed mid-act)`);
  });

  it(
    'file://: random interleavings keep one actor per claim, change nothing when refused, show every success',
    async () => {
      const before = runs;
      await property('file', SOAK_MS ? 10_000 : 4, SOAK_MS || FILE_BUDGET_MS);
      expect(runs - before).toBeGreaterThan(0);
    },
    (SOAK_MS || FILE_BUDGET_MS) + LAST_RUN_MS,
  );

  it(
    'smart HTTP: the same properties through git http-backend',
    async () => {
      const before = runs;
      await property('http', SOAK_MS ? 10_000 : 2, SOAK_MS || HTTP_BUDGET_MS);
      expect(runs - before).toBeGreaterThan(0);
    },
    (SOAK_MS || HTTP_BUDGET_MS) + LAST_RUN_MS,
  );
});

// The checker itself, on made-up histories: each rule can fail (a checker that passes everything proves nothing).
describe('history checker', () => {
  const S = (session: string) => ({ person: `${session}@example.com`, host: 'h', session });
  const claim = (session: string, gen: number, at: number, state: ClaimView['state'] = 'held', ttl = 1000): ClaimView => ({
    abcd: 'claim',
    state,
    holder: S(session),
    gen,
    at,
    ttl,
  });
  const act = (a: Partial<ActRecord> & Pick<ActRecord, 'index' | 'session' | 'verb' | 'startedAt' | 'endedAt' | 'exit'>): ActRecord => ({
    item: 'alpha',
    args: [],
    json: a.exit === 0 ? { ok: true } : undefined,
    stderrTail: '',
    ...a,
  });
  const ref = 'refs/heads/abcd/claims/local/item/alpha';
  const facts = (over: Partial<RemoteFacts> = {}): RemoteFacts => ({
    claims: new Map(),
    onMain: new Map(),
    mainTip: 'main',
    mainChain: [],
    isAncestor: async () => false,
    refsContaining: async () => [],
    refTip: async () => undefined,
    ...over,
  });

  it('a takeover before expiry plus the delay, and a write by no running act, are violations', () => {
    const acts = [
      act({ index: 0, session: 'a', verb: 'reserve', startedAt: 0, endedAt: 100, exit: 0 }),
      act({ index: 1, session: 'b', verb: 'takeover', startedAt: 900, endedAt: 1600, exit: 0 }),
    ];
    const early = checkGenerations(
      ref,
      [
        { commit: 'c1', record: claim('a', 0, 50) },
        { commit: 'c2', record: claim('b', 1, 1500) },
      ],
      acts,
      500,
    );
    expect(early.join('\n')).toMatch(/before its expiry plus delay/);
    const inTime = checkGenerations(
      ref,
      [
        { commit: 'c1', record: claim('a', 0, 50) },
        { commit: 'c2', record: claim('b', 1, 1550) },
      ],
      acts,
      500,
    );
    expect(inTime).toEqual([]);
    const phantom = checkGenerations(
      ref,
      [
        { commit: 'c1', record: claim('a', 0, 50) },
        { commit: 'c2', record: claim('a', 1, 300) },
      ],
      acts,
      500,
    );
    expect(phantom.join('\n')).toMatch(/no act of a on alpha was running/);
    const undecodable = checkGenerations(ref, [{ commit: 'c1', error: 'not JSON' }], acts, 500);
    expect(undecodable.join('\n')).toMatch(/does not decode/);
  });

  it('a refused act that wrote, and a generation that does not increase, are violations', () => {
    const acts = [act({ index: 0, session: 'a', verb: 'reserve', startedAt: 0, endedAt: 100, exit: 3 })];
    expect(checkGenerations(ref, [{ commit: 'c1', record: claim('a', 0, 50) }], acts, 0).join('\n')).toMatch(/which was refused/);
    const ok = [act({ index: 0, session: 'a', verb: 'renew', startedAt: 0, endedAt: 100, exit: 0 })];
    const flat = [
      { commit: 'c1', record: claim('a', 3, 10) },
      { commit: 'c2', record: claim('a', 3, 20) },
    ];
    expect(checkGenerations(ref, flat, ok, 0).join('\n')).toMatch(/does not increase/);
  });

  it('exit 1, a refused push on the remote, a landing missing or doubled on main, and a fence by its own generation are violations', async () => {
    const crash = act({ index: 0, session: 'a', verb: 'renew', startedAt: 0, endedAt: 1, exit: 1, stderrTail: 'internal error' });
    expect((await checkAnswers([crash], facts(), KNOWN)).join('\n')).toMatch(/exit 1, not a documented refusal/);
    const push = act({
      index: 0,
      session: 'a',
      verb: 'push',
      startedAt: 0,
      endedAt: 1,
      exit: 3,
      head: 'h1',
      branch: 'w',
      file: 'act-00-a.txt',
    });
    expect((await checkAnswers([push], facts({ refsContaining: async () => ['refs/heads/w'] }), KNOWN)).join('\n')).toMatch(
      /refused \(exit 3\) yet its head/,
    );
    const land = act({
      index: 0,
      session: 'a',
      verb: 'land',
      startedAt: 0,
      endedAt: 1,
      exit: 0,
      json: { ok: true, tip: 't' },
      branchFiles: ['act-00-a.txt'],
    });
    const missing = (await checkAnswers([land], facts(), KNOWN)).join('\n');
    expect(missing).toMatch(/tip t is not on main/);
    expect(missing).toMatch(/from 0 commits, not exactly one/);
    expect((await checkAnswers([], facts({ onMain: new Map([['act-03-b.txt', 2]]) }), KNOWN)).join('\n')).toMatch(/landed more than once/);
    const killed = act({ index: 0, session: 'a', verb: 'release', startedAt: 0, endedAt: 1, exit: 'killed' });
    const fenced = act({
      index: 1,
      session: 'a',
      verb: 'renew',
      startedAt: 2,
      endedAt: 3,
      exit: 5,
      json: { ok: false, refusal: { code: 'fenced', data: { holder: 'a@example.com/h/a' } } },
    });
    expect((await checkAnswers([killed, fenced], facts(), { ...KNOWN, ownGeneration: false })).join('\n')).toMatch(/by its own generation/);
    expect(await checkAnswers([killed, fenced], facts(), { ...KNOWN, ownGeneration: false })).toHaveLength(1);
    expect(await checkAnswers([killed, fenced], facts(), { ...KNOWN, ownGeneration: true })).toEqual([]);
  });

  it('main moved by anything but a landing is a violation', () => {
    const pushMain = act({
      index: 0,
      session: 'a',
      verb: 'push-main',
      startedAt: 0,
      endedAt: 1,
      exit: 0,
      branch: 'main',
      branchFiles: ['act-00-a.txt'],
    });
    const land = act({ index: 1, session: 'b', verb: 'land', startedAt: 0, endedAt: 1, exit: 'killed', branchFiles: ['act-01-b.txt'] });
    const chain = {
      mainChain: [
        { commit: 'm2', added: ['act-00-a.txt'] },
        { commit: 'm1', added: ['act-01-b.txt'] },
      ],
    };
    expect(checkMainWriters([pushMain, land], chain, { ...KNOWN, pushMovesMain: false }).join('\n')).toMatch(
      /pushed by #0 push alpha main, which no landing carried/,
    );
    expect(checkMainWriters([pushMain, land], chain, { ...KNOWN, pushMovesMain: true })).toEqual([]);
  });
});
