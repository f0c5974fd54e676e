// The fast path (ADR 0038) hands each verb exactly what yargs would, or hands the call to yargs.
import yargs from 'yargs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src/cli/command.js';
import { commands } from '../../src/cli/commands.js';
import { parseFast, specOf } from '../../src/cli/fast-verbs.js';
import { buildParser } from '../../src/cli/parser.js';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

/** What abcd's yargs parser (the one main.ts runs) hands the verb's run for these arguments. */
async function viaYargs(argv: string[]): Promise<Record<string, unknown>> {
  let got: Record<string, unknown> = {};
  const parser = buildParser(yargs(argv), {
    verb: argv[0],
    gate: false,
    columns: 100,
    onVerb: (_c, a) => {
      got = a;
    },
  });
  await parser.parseAsync();
  return got;
}

const same = [
  ['reserve', 'fix-login'],
  ['reserve', 'github:issue:123', '--ttl', '45m', '--note', 'login bug', '--json'],
  ['reserve', '007', '--wait=90s', '--remote', 'upstream', '--debug'],
  ['renew', 'a', '--ttl', '2h'],
  ['reserve', 'a', '--reopen', '--json'],
  ['release', 'a', '--json'],
  ['push', 'a', 'feature/x'],
  ['status', '--json'],
  ['status', '--watch', '2s'],
  ['land', 'a', 'work', '--strategy', 'merge', '--keep', '--wait', '5m'],
  ['land', 'a', '--strategy', 'squash'],
  ['items', '--json'],
  ['items', 'add', 'fix-login', '--title', 'Fix the login', '--depends-on', 'a,b', '--github'],
  ['items', 'close', 'github:issue:12', '--wait=5m'],
  // The words of announce stay the strings typed, whatever they look like.
  ['announce', 'working', 'fix-login', 'rewriting the session store'],
  ['announce', 'blocked', 'waiting for the API answer', '--json'],
  ['announce', 'done', '42'],
  ['announce', 'away', '1e3', '0x10', '007', '1.50', 'Infinity'],
  ['announce', 'working', ''],
  ['announce', 'working', 'a', '', 'c'],
  ['announce', 'working', 'x=y', 'a b'],
  ['announce', 'away', '--ttl', '30m', 'back after the build'],
  ['announce', 'away', 'lunch', '--ttl', '30m', 'soon'],
  ['announce', 'away', 'lunch', '--ttl=1e3'],
  ['announce', 'away', 'lunch', '--ttl', '5'],
  ['announce', '--ttl', '1h', 'working', 'x', '--json', 'y'],
  ['announce', 'working', 'x', '--remote', 'upstream', '--verbose'],
];

const toYargs = [
  [],
  ['--help'],
  ['reserve', '--help'],
  ['reserve'],
  ['reserve', 'a', 'b'],
  ['reserve', 'a', '--ttl'],
  ['reserve', 'a', '--ttl', '--json'],
  ['reserve', '-odd'],
  ['reserve', 'a', '--unknown'],
  ['reserve', 'a', '--json', '--json'],
  ['reserve', 'a', '--no-json'],
  ['reserve', 'a', '--json=false'],
  ['reserve', 'a', '--', 'b'],
  ['--json', 'reserve', 'a'],
  ['push', 'a', '--tag', 'v1'],
  ['land', 'a', '--strategy', 'octopus'],
  ['settings', 'reservation-cap', '3'],
  ['gate', '--', 'true'],
  ['reserve', 'help'],
  ['reserve', 'a', '--version'],
  ['items', '--remote'],
  ['items', 'remove', 'a'],
  // announce: a state that is no choice, missing words, words yargs treats as flags or its own.
  ['announce'],
  ['announce', 'working'],
  ['announce', 'working', '--ttl', '1h'],
  ['announce', 'sleeping', 'zzz'],
  ['announce', 'Working', 'x'],
  ['announce', '42', 'x'],
  ['announce', 'working', '-x'],
  ['announce', 'working', 'a', '-5'],
  ['announce', 'working', 'a', '-'],
  ['announce', 'working', '--', 'x'],
  ['announce', 'working', 'x', '--', 'y'],
  ['announce', 'working', '--x=y'],
  ['announce', 'working', 'help'],
  ['announce', 'working', 'true'],
  ['announce', 'working', 'x', '--ttl', ''],
  ['announce', 'working', 'x', '--ttl', '1h', '--ttl', '2h'],
  ['announce', 'working', 'x', '--words', 'y'],
  ['announce', 'working', 'x', '--state', 'done'],
  ['announce', 'working', 'x', '--help'],
  ['announce', '--help'],
];

describe('the fast path', () => {
  afterAll(cleanupTemp);

  for (const argv of same) {
    it(`reads "${argv.join(' ')}" as yargs does`, async () => {
      const fast = parseFast(argv);
      expect(fast).toBeDefined();
      const y = await viaYargs(argv);
      for (const [k, v] of Object.entries(fast!.args)) if (k !== '$0') expect([k, y[k]]).toEqual([k, v]);
      for (const [k, v] of Object.entries(y)) if (k !== '$0' && v !== undefined) expect([k, fast!.args[k]]).toEqual([k, v]);
    });
  }

  it('a builder the stand-in for yargs cannot follow leaves the verb to yargs', () => {
    const reserve = commands.find((c) => c.command.toString().startsWith('reserve '))!;
    expect(specOf(reserve)?.positionals.has('item')).toBe(true);
    const reads: Command = {
      ...reserve,
      // Reads a value off yargs, as a builder may: the stand-in has none to give.
      builder: (y) => (y as unknown as { parsed: { argv: { remote: () => typeof y } } }).parsed.argv.remote(),
    };
    expect(specOf(reads)).toBeUndefined();
  });

  it('hands everything else to yargs', () => {
    for (const argv of toYargs) expect([argv, parseFast(argv)]).toEqual([argv, undefined]);
  });

  it('runs a verb and refuses bad input the same way on either path', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'fast');
    const ok = await s.abcd(['reserve', 'quick', '--json', '--note', 'n']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/quick')).toBe(ok.json.claimTip);
    // The same refusal whether the fast path (first) or yargs (options first) read the call.
    const bad = await s.abcd(['reserve', 'Bad Item!', '--json']);
    const badFull = await s.abcd(['--json', 'reserve', 'Bad Item!']);
    expect(bad.code).toBe(2);
    expect(bad.json).toEqual(badFull.json);
    const help = await s.abcd(['reserve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--ttl/);
    // announce: the same answer, refusal and help on either path.
    const said = await s.abcd(['announce', 'working', 'quick', 'on it', '--json']);
    expect(said.code, said.stderr).toBe(0);
    const saidFull = await s.abcd(['--json', 'announce', 'working', 'quick', 'on it']);
    expect({ ...said.json, at: 0, expiresAt: 0 }).toEqual({ ...saidFull.json, at: 0, expiresAt: 0 });
    expect(said.json).toMatchObject({ state: 'working', item: 'quick', text: 'on it' });
    const blank = await s.abcd(['announce', 'working', ' ', '--json']);
    expect(blank.code).toBe(2);
    expect(blank.json).toEqual((await s.abcd(['--json', 'announce', 'working', ' '])).json);
    const noWords = await s.abcd(['announce', 'working', '--json']);
    expect([noWords.code, noWords.json.refusal.message]).toEqual([2, expect.stringMatching(/announce needs <words\.\.>/)]);
    const announceHelp = await s.abcd(['announce', '--help']);
    expect(announceHelp.code).toBe(0);
    expect(announceHelp.stdout).toMatch(/abcd announce <state> <words\.\.>[\s\S]*--ttl/);
  });
});
