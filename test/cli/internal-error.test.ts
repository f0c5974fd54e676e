// A failure abcd did not foresee is exit 1, "this is a bug in abcd", one line, and the stack
// only with --debug. Triggered for real: the clone's session file (.git/abcd/session) is a
// directory, so reading it throws EISDIR, an error no refusal covers. Then report.ts as built
// in dist/, with the kind of error a bug throws (a TypeError).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

const STACK_LINE = /^\s+at /m;
const BUG = /^abcd: internal error, this is a bug in abcd: EISDIR/;

describe('an internal error, for real', () => {
  let s: Session;
  // ABCD_SESSION unset: abcd reads the clone's own session id file.
  const run = (args: string[]) => s.abcd(args, { env: { ABCD_SESSION: '' } });
  beforeAll(async () => {
    s = await makeSession((await makeRemote()).url, 'ida');
    await mkdir(join(s.dir, '.git', 'abcd', 'session'), { recursive: true });
  });
  afterAll(cleanupTemp);

  it('without --debug: exit 1, one line saying it is a bug and how to see the stack, no stack', async () => {
    const r = await run(['status']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(BUG);
    expect(r.stderr).toContain('(run again with --debug for the stack)');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it("with --debug: exit 1, the same line, then the stack naming abcd's own functions", async () => {
    const r = await run(['status', '--debug']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(BUG);
    expect(r.stderr).not.toContain('run again with --debug');
    expect(r.stderr).toMatch(STACK_LINE);
    // The bundle is minified; --debug turns its source maps on, so frames name abcd's sources.
    expect(r.stderr).toMatch(/repo\/session\.(ts|js):\d+/);
  });

  it('with --json: exit 1, code "internal" on stdout, the line on stderr, no stack', async () => {
    const r = await run(['reserve', 'anything', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ ok: false, refusal: { code: 'internal', exit: 1, message: expect.stringMatching(/^EISDIR/), data: {} } });
    expect(r.stderr).toMatch(BUG);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});

describe('report.ts as built', () => {
  const built = resolve(import.meta.dirname, '../../dist/cli/report.js');
  const capture = () => {
    const out = { stdout: '', stderr: '' };
    return { out, sink: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), isTTY: false } };
  };
  let reportFailure: (e: unknown, o: { json: boolean; debug: boolean; out: unknown }) => number;
  let UsageError: new (message: string, kind: string, data?: Record<string, unknown>) => Error;
  beforeAll(async () => {
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build before the tests`);
    ({ reportFailure } = await import(pathToFileURL(built).href));
    ({ UsageError } = await import(pathToFileURL(resolve(built, '../../core/refusals.js')).href));
  });

  function bug(): TypeError {
    try {
      (undefined as unknown as { claims: () => void }).claims();
    } catch (e) {
      return e as TypeError;
    }
    throw new Error('unreachable');
  }

  it.each([false, true])('a TypeError with --debug %s: exit 1, "this is a bug", the stack only with --debug', (debug) => {
    const { out, sink } = capture();
    expect(reportFailure(bug(), { json: false, debug, out: sink })).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^abcd: internal error, this is a bug in abcd: Cannot read properties of undefined \(reading 'claims'\)/);
    expect(STACK_LINE.test(out.stderr)).toBe(debug);
    expect(out.stderr.includes('run again with --debug')).toBe(!debug);
  });

  it('a refusal is never called a bug, and keeps its own exit code', () => {
    const { out, sink } = capture();
    expect(reportFailure(new UsageError('name a verb', 'argument'), { json: false, debug: false, out: sink })).toBe(2);
    expect(out.stderr).toBe('abcd: name a verb\n');
  });
});
