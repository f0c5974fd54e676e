// One JSON vocabulary: every verb's real --json answer, success and
// refusal, matches the schema `abcd schema` publishes, and the schemas use one set of names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS, refusalAnswer } from '../../src/cli/answers.js';
import { commands } from '../../src/cli/commands.js';
import { codesOf } from '../../src/cli/refusal-codes.js';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type AbcdRun, type Session } from '../harness/session.js';

/** The codes a verb's --help lists; an unknown verb can give any code every verb can. */
function codesListed(verb: string) {
  return codesOf(commands.find((c) => String(c.command).split(' ')[0] === verb)?.refusals ?? []);
}

function expectShape(verb: string, r: AbcdRun): void {
  expect(r.json, `${verb}: ${r.stdout} ${r.stderr}`).toBeDefined();
  if (!r.json.ok)
    expect(codesListed(verb), `${verb} answered ${r.json.refusal?.code}, which its --help does not list`).toContain(r.json.refusal?.code);
  // A refusal's code must be one the verb's published schema lists.
  const schema = r.json.ok ? ANSWERS[verb]! : refusalAnswer(codesListed(verb));
  const parsed = schema.safeParse(r.json);
  expect(parsed.success, `${verb} answer ${JSON.stringify(r.json)}\n${parsed.error?.message}`).toBe(true);
}

/** Every key of every object in a JSON value, with its path. */
function keysOf(v: unknown, path = ''): Array<[string, string, unknown]> {
  if (Array.isArray(v)) return v.flatMap((x, i) => keysOf(x, `${path}[${i}]`));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [[`${path}.${k}`, k, x] as [string, string, unknown], ...keysOf(x, `${path}.${k}`)]);
  return [];
}

describe('JSON answers', () => {
  let remote: BareRemote;
  let a: Session;
  let b: Session;
  const answers: Array<[string, AbcdRun]> = [];
  beforeAll(async () => {
    remote = await makeRemote();
    [a, b] = await Promise.all([makeSession(remote.url, 'alice'), makeSession(remote.url, 'bob')]);
  });
  afterAll(cleanupTemp);

  it('every verb an agent uses answers in its published shape, success and refusal', async () => {
    const run = async (s: Session, verb: string, args: string[]) => {
      const r = await s.abcd([verb, '--json', ...args]);
      answers.push([verb, r]);
      expectShape(verb, r);
      return r;
    };
    const took = await run(a, 'reserve', ['shape', '--note', 'checking shapes']);
    expect(took.json.waitedMs).toBe(0);
    expect(took.json.tookOverFrom).toBeNull();
    await run(b, 'reserve', ['shape']); // held
    await run(a, 'renew', ['shape', '--ttl', '10m']);
    await a.git(['checkout', '-q', '-b', 'work/shape']);
    await a.commit('shape.txt', 'shape\n');
    await run(a, 'push', ['shape']);
    await run(a, 'announce', ['working', 'shape', 'checking the shapes']);
    await run(a, 'status', []);
    const landed = await run(a, 'land', ['shape']);
    expect(landed.json).toMatchObject({ state: 'done', github: null });
    await run(a, 'release', ['shape']);
    await run(b, 'reserve', ['shape']); // landed
    await run(b, 'release', ['never-held']); // not-holder
    await run(b, 'gate', ['--', 'true']);
    await run(b, 'gate', ['--status']);
    await run(b, 'settings', []);
    await run(b, 'prime', []);
    await run(b, 'schema', ['reserve']);
    await run(b, 'completion', ['bash']);
    await run(b, 'frobnicate', []); // unknown verb: a refusal
  });

  it('one vocabulary: instants are ISO with ms, durations are *Ms integers, no key is named ttl or tip for a claim', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const [verb, r] of answers) {
      if (verb === 'schema') continue; // its answer is a schema, whose keys are the names themselves
      for (const [path, key, value] of keysOf(r.json)) {
        if (path.startsWith('.refusal.data')) continue; // a refusal's data is its own
        if (/(At|since|until)$/.test(key) && value !== null)
          expect(value, `${verb} ${path}`).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        if (/Ms$/.test(key)) expect(Number.isInteger(value), `${verb} ${path}`).toBe(true);
        expect(key, `${verb} ${path}`).not.toBe('ttl');
      }
      if (['reserve', 'renew', 'release', 'push'].includes(verb) && r.json.ok) {
        expect(r.json.claimTip, verb).toMatch(/^[0-9a-f]{40}$/);
        expect(r.json.tip, verb).toBeUndefined();
      }
    }
  });

  it('abcd schema publishes a JSON Schema for every verb in the command table', async () => {
    const names = commands.map((c) => String(c.command).split(' ')[0]!);
    expect(Object.keys(ANSWERS).sort()).toEqual([...names].sort());
    const r = await a.abcd(['schema', 'land']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.$schema).toMatch(/json-schema.org/);
    expect(JSON.stringify(s)).toContain('previousTip');
    const every = JSON.parse((await a.abcd(['schema'])).stdout);
    expect(Object.keys(every).sort()).toEqual([...names].sort());
  });
});
