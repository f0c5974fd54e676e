// The small things people expect of a CLI: a closed pipe ends quietly, a typo names the nearest
// verb or flag, completion offers item slugs from the clone's own cache, an unsized pty still
// shows the live wait line, and the answers are worded for people.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { ABCD_BIN, twoSessions, type Session } from '../harness/session.js';
import { onTty } from '../harness/tty.js';

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
const ABCD = `${quote(process.execPath)} ${quote(ABCD_BIN)}`;

describe('pipes, typos, completion and the odd terminal', () => {
  let a: Session, b: Session;
  beforeAll(async () => {
    ({ a, b } = await twoSessions());
    expect((await a.abcd(['reserve', 'busy', '--ttl', '1h'])).code).toBe(0);
    expect((await a.abcd(['reserve', 'item-2'])).code).toBe(0);
  });
  afterAll(cleanupTemp);

  it('a reader that closes the pipe early ends abcd quietly, with its usual status', async () => {
    for (const args of ['schema', '--help', 'status --help', 'completion bash']) {
      const r = await execa('bash', ['-c', `set -o pipefail; ${ABCD} ${args} | head -1 >/dev/null`], {
        cwd: b.dir,
        env: b.env,
        extendEnv: false,
        reject: false,
      });
      expect(r.stderr, args).toBe('');
      expect(r.exitCode, args).toBe(0);
    }
  });

  it('an unknown verb or flag names the nearest one', async () => {
    const verb = await b.abcd(['statsu']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toContain('Did you mean "abcd status"?');
    const json = await b.abcd(['statsu', '--json']);
    expect(json.json.refusal).toMatchObject({ code: 'usage', data: { verb: 'statsu' } });
    expect(json.json.refusal.message).toContain('abcd status');
    const flag = await b.abcd(['status', '--al']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('Did you mean "--all"?');
    // Nothing near: no guess.
    expect((await b.abcd(['xyzzy'])).stderr).not.toContain('Did you mean');
  });

  it('bash completion offers item slugs from the cache (no network), and each verb its own flags', async () => {
    expect((await b.abcd(['status'])).code).toBe(0); // fills b's cache of the records
    const complete = async (words: string[]) => {
      const script = `source <(${ABCD} completion bash); abcd() { ${ABCD} "$@"; }; COMP_WORDS=(${words.map(quote).join(' ')}); COMP_CWORD=${words.length - 1}; _abcd; printf '%s\\n' "\${COMPREPLY[@]}"`;
      // The remote is gone: completion must not need it.
      const r = await execa('bash', ['-c', script], {
        cwd: b.dir,
        env: { ...b.env, GIT_ALLOW_PROTOCOL: 'none' },
        extendEnv: false,
        reject: false,
      });
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(await complete(['abcd', 'release', ''])).toEqual(['busy', 'item-2']);
    expect(await complete(['abcd', 'reserve', 'it'])).toEqual(['item-2']);
    expect(await complete(['abcd', 'status', '--wa'])).toEqual(['--watch', '--watch-exit']);
    expect(await complete(['abcd', 'land', '--st'])).toEqual(['--strategy']);
    expect((await b.abcd(['completion', '--items', '--json'])).json.items).toEqual(['busy', 'item-2']);
  });

  it('a wait on a pty nobody sized (0x0) still draws its live line', async () => {
    const r = await onTty(b.dir, b.env, ['reserve', 'busy', '--wait', '3s'], 0, 0);
    expect(r.code).toBe(4);
    // Drawn for 80 columns: the line is cut to fit them.
    expect(r.screen).toMatch(/waiting for busy, held by alice@example\.com\/\S+ \(expires in [^)]+\), [\d.]+m?s le/);
  });

  it('land from main gives the git switch -c hint push gives', async () => {
    const r = await a.abcd(['land', 'busy', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { item: 'busy', branch: 'main', reason: 'main' } });
    expect(r.json.refusal.message).toContain('git switch -c work/busy');
  });

  it('a second land after a normal success says it landed, not that a run was cut off', async () => {
    expect((await a.abcd(['reserve', 'twice'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/twice']);
    await a.commit('twice.txt', 'twice\n');
    expect((await a.abcd(['land', 'twice'])).code).toBe(0);
    const again = await a.abcd(['land', 'twice', '--json']);
    expect(again.code).toBe(3);
    expect(again.json.refusal.code).toBe('claim-ended');
    expect(again.json.refusal.message).toMatch(/^twice already landed on main at [0-9a-f]{12}, by this session/);
    expect(again.json.refusal.message).not.toMatch(/cut off/);
    await a.git(['checkout', '-q', 'main']);
  });

  it('the settings answer reads as sentences, and the unprotected warning takes one line of the width, never a cut path', async () => {
    const s = await b.abcd(['settings']);
    expect(s.stdout).toContain('These are the defaults: nobody has set a setting on this remote yet.');
    expect(s.stdout).not.toContain('(defaults (');
    const wide = await onTty(b.dir, b.env, ['status'], 200, 40);
    // eslint-disable-next-line no-control-regex -- terminal escapes are what this strips from the captured screen
    const plain = (t: string) => t.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    const signers = /(\/\S+allowed-signers)/.exec(plain(wide.screen))?.[1];
    expect(signers, wide.screen).toBeDefined();
    // On a narrow terminal: one line within its width, in words that still say what to do.
    const narrow = plain((await onTty(b.dir, b.env, ['status'], 60, 40)).screen).split('\n');
    const warning = narrow.filter((l) => l.includes('unprotected'));
    expect(warning, narrow.join('\n')).toHaveLength(1);
    expect(warning[0]!.trimEnd().length).toBeLessThanOrEqual(60);
    expect(warning[0]).toMatch(/^settings are unprotected: (list your signing key in|see abcd settings)/);
    expect(narrow.join('\n')).not.toMatch(/allowed-signer(?!s)/);
  });
});
