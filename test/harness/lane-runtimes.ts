// What the lane tests of the resumable runtimes share (the real Codex and Gemini CLIs in real
// lanes against their model stubs): the CLIs on PATH, main's files, and the scenarios that are
// the same for both: a steer that resumes the conversation, an install under HOME, a timeout, a
// pool the first answer crosses, a key named for the agent, a lane with no sandbox. What a runtime
// asserts of its own stays in its test file.
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { STEER_ENVELOPE_FIRST_LINE } from '../../src/steering/envelope.js';
import { itemStatus, laneRun } from './lanes.js';
import type { BareRemote } from './remote.js';
import { makeSession, type AbcdRun, type Json, type Session } from './session.js';
import { refsUnder, remoteRecord, until } from './steer.js';

/** The devDependencies' programs (the real agent CLIs). */
export const BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin');
/** A PATH with the agent CLIs first. */
export const CLI_PATH = `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`;

export async function mainFile(remote: { dir: string }, path: string): Promise<string> {
  return (await execa('git', ['-C', remote.dir, 'show', `main:${path}`])).stdout;
}

/** A step of either stub's script (both take the same shape). */
type Step = ({ exec: string } | { say: string }) & { usage?: { input: number; cached?: number; output: number } };

/** Either model stub as the shared scenarios read it. */
export interface ModelStub {
  readonly requests: ReadonlyArray<{ userTexts: string[]; key?: string }>;
  reported(): { input: number; output: number; requests: number };
  verify(o?: { allStepsUsed?: boolean }): void;
  inFlight(): number;
}

/** The runtime a scenario drives: its name (its program's too), and what the test's messages call its CLI. */
export interface RuntimeUnderTest {
  runtime: string;
  cli: string;
}

/**
 * A model that waits for the steer before its first command, answers, then does what the
 * resumed turn's envelope asks (its text into notes.txt). `release` lets the first step go.
 */
export function steeredScript(tag: string): {
  steps: Array<Step | (() => Promise<Step>) | ((req: { userTexts: string[] }) => Step)>;
  release: () => void;
} {
  let release!: () => void;
  const steered = new Promise<void>((r) => (release = r));
  const steps = [
    async () => {
      await steered;
      return { exec: `printf "first\\n" > notes.txt && git add notes.txt && git commit -qm "${tag}: first"` };
    },
    { say: 'first part done' },
    (req: { userTexts: string[] }) => {
      const envelope = req.userTexts.at(-1) ?? '';
      if (!envelope.startsWith(STEER_ENVELOPE_FIRST_LINE)) throw new Error(`the resumed turn is no envelope: ${envelope.slice(0, 200)}`);
      // The agent does what the amendment says: its text, quoted, goes into the file.
      const asked = /^\| (.*)$/m.exec(envelope)?.[1] ?? 'nothing';
      return { exec: `printf '%s\\n' '${asked}' >> notes.txt && git commit -qam "${tag}: steer"` };
    },
    { say: 'the steer is done' },
  ];
  return { steps, release: () => release() };
}

/**
 * Builds `notes` while a person steers it once the CLI asked the model, then lets the model go
 * on: the build lands what the steer asked, both runs' requests counted once each. The
 * resumed request is returned for the runtime's own look at it.
 */
export async function buildSteered<R extends { userTexts: string[] }>(
  t: RuntimeUnderTest,
  remote: BareRemote,
  lane: Session,
  server: ModelStub & { requests: readonly R[] },
  release: () => void,
): Promise<{ r: AbcdRun; steer: AbcdRun; resumed: R }> {
  const run = lane.abcd(['build', 'notes', '--json', '--agent-timeout', '120s'], { timeoutMs: 170_000 });
  await until(`${t.cli} to ask the model`, () => server.requests.length >= 1, 120_000);

  const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
  const steer = await asker.abcd(['steer', 'notes', 'add a line saying steered', '--json']);
  expect(steer.code, steer.stdout + steer.stderr).toBe(0);
  expect(steer.json).toMatchObject({ item: 'notes', as: 'amendment' });
  release();

  const r = await run;
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.json).toMatchObject({ outcome: 'landed' });
  expect(await mainFile(remote, 'notes.txt')).toBe('first\nadd a line saying steered');
  // Both runs' requests, once each, whatever the CLI reports of them.
  const reported = server.reported();
  expect(reported.requests).toBe(4);
  expect(laneRun(r).record.cycles[0].usage).toBe(reported.input + reported.output);
  return { r, steer, resumed: server.requests[2]! };
}

/** The resumed request carries the first turn's prompt before the envelope, and the landing's receipt lists the steer. */
export async function expectSteerResumed(
  remote: BareRemote,
  steered: { r: AbcdRun; steer: AbcdRun; resumed: { userTexts: string[] } },
  server: ModelStub,
): Promise<void> {
  const { r, steer, resumed } = steered;
  expect(resumed.userTexts.findIndex((t) => t.includes('You are an unattended agent in an abcd lane'))).toBeLessThan(
    resumed.userTexts.length - 1,
  );
  expect(resumed.userTexts.at(-1)!.split('\n')[0]).toBe(STEER_ENVELOPE_FIRST_LINE);
  expect(resumed.userTexts.at(-1)).toMatch(new RegExp(`--- amendment 1/1: steer ${steer.json.id} by lane@example\\.com/`));

  const receipt = await remoteRecord(remote, 'refs/heads/abcd/receipts/local/item/notes');
  expect(receipt).toMatchObject({ abcd: 'receipt', item: 'local:item:notes', runId: r.json.runId });
  expect(receipt.consumed).toEqual([expect.objectContaining({ kind: 'steer', id: steer.json.id })]);
  expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([]);
  server.verify({ allStepsUsed: true });
}

/** A model that writes home.txt and is done. */
export function homeScript(tag: string): Step[] {
  return [{ exec: `echo home > home.txt && git add home.txt && git commit -qm "${tag}: home"` }, { say: 'done' }];
}

/**
 * The CLI installed under the lane's HOME (which the sandbox hides) as an npm install of hard
 * links (a native binary may be 400 MB), and no other on PATH: `scope` is its package folder,
 * `launcher` its bin below node_modules. A drain runs it, and what it wrote lands.
 */
export async function expectRunsFromHome(
  t: RuntimeUnderTest,
  remote: BareRemote,
  lane: Session,
  server: ModelStub,
  install: { scope: string; launcher: string },
): Promise<void> {
  const modules = join(lane.env.HOME!, 'tools', 'node_modules');
  await mkdir(join(modules, '.bin'), { recursive: true });
  await execa('cp', ['-al', join(BIN, '..', install.scope), join(modules, install.scope)]);
  await symlink(`../${install.launcher}`, join(modules, '.bin', t.runtime));
  const PATH = [join(modules, '.bin'), ...CLI_PATH.split(':').filter((d) => !d.endsWith('node_modules/.bin'))].join(':');
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--json', '--agent-timeout', '120s'], { env: { PATH }, timeoutMs: 150_000 });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
  expect(await mainFile(remote, 'home.txt')).toBe('home');
  server.verify({ allStepsUsed: true });
}

/**
 * A model that refuses its first request: the cycle fails with `said` (what the CLI said of it),
 * not with the CLI's raw events (`raw`), the item is still ready, and the model was asked once.
 */
export async function expectRefusedModelFails(
  t: RuntimeUnderTest,
  remote: BareRemote,
  lane: Session,
  server: ModelStub,
  seen: { said: RegExp; raw: RegExp },
): Promise<void> {
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
  expect(r.code, r.stdout + r.stderr).toBe(3);
  const [cycle] = laneRun(r).record.cycles;
  expect(cycle).toMatchObject({ item: 'refused', outcome: 'failed', code: 'agent-failed' });
  expect(cycle.reason).toMatch(seen.said);
  expect(cycle.reason).not.toMatch(seen.raw);
  expect(await itemStatus(remote, 'refused')).toBe('ready');
  expect(server.requests).toHaveLength(1);
}

/** A drain past an 8s timeout: the CLI is killed with what it started, its request dropped, the item still ready. */
export async function expectKilledAtTimeout(t: RuntimeUnderTest, remote: BareRemote, lane: Session, server: ModelStub): Promise<void> {
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--json', '--agent-timeout', '8s'], { timeoutMs: 150_000 });
  expect(r.code, r.stdout + r.stderr).toBe(3);
  expect(laneRun(r).record.cycles[0]).toMatchObject({ item: 'slow', outcome: 'timeout' });
  expect(server.requests).toHaveLength(1);
  await until('the killed agent to drop its request', () => server.inFlight() === 0, 10_000);
  expect(await itemStatus(remote, 'slow')).toBe('ready');
}

/** A model whose first answer (1240 tokens) crosses a pool of 1000, and a second it is never asked for. */
export function poolScript(tag: string): Step[] {
  return [
    { exec: `echo part > part.txt && git add part.txt && git commit -qm "${tag}: part"`, usage: { input: 1200, cached: 0, output: 40 } },
    { say: 'never asked for', usage: { input: 5000, output: 5000 } },
  ];
}

/**
 * With a pool of 1000 the gateway stops the request after the first answer: the cycle ends
 * budget-exhausted, one answer was sent and only what it reported was debited, nothing landed.
 */
export async function expectPoolStopsInFlight(t: RuntimeUnderTest, remote: BareRemote, lane: Session, server: ModelStub): Promise<Json> {
  expect((await lane.abcd(['budget', 'set', '1000'])).code).toBe(0);
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
  expect(r.code, r.stdout + r.stderr).toBe(3);
  const [cycle] = laneRun(r).record.cycles;
  expect(cycle, JSON.stringify(r.json)).toMatchObject({ item: 'long', outcome: 'failed', code: 'budget-exhausted' });
  expect(cycle.reason).toContain('model gateway stopped');
  expect(server.requests).toHaveLength(1);
  expect(cycle.usage).toBe(1240);
  expect(cycle.spend).toMatchObject({ source: 'api', inputTokens: 1200, outputTokens: 40 });
  expect((await lane.abcd(['budget', '--json'])).json).toMatchObject({ spent: 1240, remaining: 0 });
  await expect(mainFile(remote, 'part.txt')).rejects.toThrow();
  return cycle;
}

/** A key named in `lanes.<runtime>.env` is refused before anything is claimed: the gateway passes it. */
export async function expectKeyNamingRefused(t: RuntimeUnderTest, lane: Session, name: string): Promise<void> {
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.json.refusal).toMatchObject({ data: { name, key: `lanes.${t.runtime}.env` } });
  expect(r.json.refusal.message).toContain("abcd's model gateway adds the key");
}

/** Unsandboxed there is no gateway: the CLI is passed `key` itself, and usage (70 in, 5 out) is its own report. */
export async function expectUnsandboxedOwnUsage(t: RuntimeUnderTest, lane: Session, server: ModelStub, key: string): Promise<void> {
  const r = await lane.abcd(['drain', '--runtime', t.runtime, '--sandbox', 'none', '--json', '--agent-timeout', '120s'], {
    timeoutMs: 150_000,
  });
  expect(laneRun(r).sandbox, r.stdout + r.stderr).toBe('none');
  expect(server.requests.map((q) => q.key)).toEqual([key]);
  expect(laneRun(r).record.cycles[0].spend).toMatchObject({ source: 'runtime', inputTokens: 70, outputTokens: 5 });
  expect((await lane.abcd(['logs', laneRun(r).runId])).stdout).not.toContain('[abcd] model:');
}
