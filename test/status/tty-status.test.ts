// abcd status for a person at a terminal: sections, relative times, colour
// only on a terminal without NO_COLOR, lines cut to the terminal's width, refused records
// last with the command that fixes them, and --watch redrawing only on change.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { writeRawRecord, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, twoSessions, type Session } from '../harness/session.js';
import { onTty } from '../harness/tty.js';

const ESC = '\u001b[';
// eslint-disable-next-line no-control-regex -- terminal escapes are what is stripped
const visible = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

describe('status at a terminal', () => {
  let remote: BareRemote, a: Session, b: Session;
  beforeAll(async () => {
    ({ remote, a, b } = await twoSessions());
    const long = 'a note long enough to run past the edge of a narrow terminal '.repeat(3).trim();
    expect((await a.abcd(['reserve', 'wide', '--note', long])).code).toBe(0);
    expect((await b.abcd(['announce', 'blocked', 'wide', 'waiting on alice'])).code).toBe(0);
    await writeRawRecord(remote.dir, 'refs/heads/abcd/claims/local/item/broken', '{"abcd":"claim","v":1,"item":7}');
  });
  afterAll(cleanupTemp);

  it('groups sections, says times relatively, colours the header, and cuts lines to the width', async () => {
    const r = await onTty(b.dir, b.env, ['status'], 70);
    expect(r.code).toBe(0);
    const lines = visible(r.screen).split(/\r?\n/);
    expect(lines[0]).toMatch(/^abcd status: origin, read \d\d:\d\d:\d\dZ as bob@example\.com/);
    expect(r.screen).toContain(`${ESC}36m`); // the header's colour
    const text = lines.join('\n');
    for (const s of ['Claims (1)', 'Announcements', 'Refused records (1)']) expect(text).toContain(s);
    expect(text).toMatch(/wide\s+alice@example\.com\S*\s+\d+(\.\d)?m?s ago\s+expires in (29|30)m/);
    expect(text).toContain('…');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(70);
    // Refused records want attention: they come first, each with the command that fixes it.
    expect(text.indexOf('Refused records')).toBeLessThan(text.indexOf('Claims ('));
    expect(text).toContain('fix: abcd release broken --force');
  });

  it('NO_COLOR and pipes get no colour and nothing cut', async () => {
    const nc = await onTty(b.dir, { ...b.env, NO_COLOR: '1' }, ['status'], 70);
    // eslint-disable-next-line no-control-regex -- a colour escape must not be written
    expect(nc.screen).not.toMatch(/\u001b\[\d+m/);
    const piped = await b.abcd(['status']);
    expect(piped.stdout).not.toContain(ESC);
    expect(piped.stdout).toContain('past the edge of a narrow terminal a note long enough');
    // A refused record reads as a sentence, not a schema pattern.
    expect(piped.stdout).toContain('"item" should be a string');
  });

  it('--watch redraws the screen only when something changed, and always says when it last read', async () => {
    const watch = execa(
      'script',
      ['-qfec', `stty rows 40 cols 100; exec '${process.execPath}' '${ABCD_BIN}' status --watch 1s`, '/dev/null'],
      {
        cwd: b.dir,
        env: b.env,
        extendEnv: false,
        reject: false,
      },
    );
    let screen = '';
    watch.stdout!.on('data', (d: Buffer) => (screen += d.toString()));
    const reads = () => (screen.match(/last read \d\d:\d\d:\d\dZ/g) ?? []).length;
    const draws = () => (screen.match(/Claims \(/g) ?? []).length;
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 300 && !ok(); i++) await new Promise((res) => setTimeout(res, 100));
    };
    try {
      await until(() => reads() >= 3);
      expect(draws()).toBe(1);
      expect((await a.abcd(['reserve', 'another'])).code).toBe(0);
      await until(() => draws() >= 2);
      expect(draws()).toBe(2);
      expect(screen).toContain('Claims (2)');
    } finally {
      watch.kill('SIGTERM');
      await watch;
    }
  });
});
