// build and drain in a real terminal (tmux, 100x24): one live line per working lane (item,
// phase, elapsed time, usage so far, the agent's latest line), redrawn in place so nothing piles
// up in the scrollback, and gone when the run answers. Off a terminal: a plain line per phase
// change, none for the agent's output.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import { ABCD_BIN, type Session } from '../harness/session.js';

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
// Prints a line, works a while, prints another: the live line shows each in turn.
const AGENT = `echo '{"tokens":77}' >> "$ABCD_USAGE"; echo "reading the code"; sleep 3; echo "writing the fix"; sleep 3; ${COMMITTING_AGENT}`;

describe('live lane lines', () => {
  let socket: string;
  let dir: string;
  const tmux = (args: string[]) => execa('tmux', ['-S', socket, ...args], { reject: false });
  const pane = async () => (await tmux(['capture-pane', '-p', '-t', 'w'])).stdout;
  const format = async (f: string) => (await tmux(['display-message', '-p', '-t', 'w', f])).stdout.trim();
  const until = async (ok: () => Promise<boolean>, what: string, tries = 600) => {
    for (let i = 0; i < tries; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}:\n${await pane()}`);
  };

  beforeAll(async () => {
    dir = await tempDir('tmux-lanes');
    socket = join(dir, 'tmux.sock');
  });
  afterAll(async () => {
    await tmux(['kill-server']);
    await cleanupTemp();
  });

  async function inTmux(s: Session, args: string[]): Promise<void> {
    // The pane of a test before (its shell waits a minute so its screen can be read) goes first.
    await tmux(['kill-server']);
    const script = join(dir, 'lane.sh');
    const env = Object.entries(s.env).map(([k, v]) => `export ${k}=${quote(v)}`);
    await writeFile(
      script,
      [...env, `cd ${quote(s.dir)}`, `${[process.execPath, ABCD_BIN, ...args].map(quote).join(' ')}`, 'echo EXITED $?', 'sleep 60'].join(
        '\n',
      ),
    );
    const r = await tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'w', '-x', '100', '-y', '24', `bash ${quote(script)}`]);
    expect(r.exitCode, r.stderr).toBe(0);
  }

  it("build on a terminal: the lane's line shows the agent's latest line, then its checks, redrawn in place, then the answer alone", async () => {
    const remote = await remoteWithItems([{ slug: 'fixme' }], { land: { checks: 'sleep 3' } });
    const s = await laneSession(remote, 'ttylane');
    await inTmux(s, ['build', 'fixme', '--agent', AGENT]);
    await until(async () => /fixme {2}agent {2}\d+s {2}0 tokens {2}reading the code/.test(await pane()), 'the first line');
    const history = await format('#{history_size}');
    await until(async () => /fixme {2}agent {2}\d+s {2}0 tokens {2}writing the fix/.test(await pane()), 'the second line');
    // One line, replaced: the first is gone from the screen, nothing went to the scrollback.
    expect(await pane()).not.toContain('reading the code');
    await until(async () => /fixme {2}checks {2}\d+s {2}77 tokens {2}writing the fix/.test(await pane()), 'the checks line');
    await until(async () => (await pane()).includes('EXITED'), 'the build to end');
    const screen = await pane();
    expect(screen).toMatch(/lane run \S+ \(once, sandbox \w+\): landed/);
    expect(screen).toContain('EXITED 0');
    // The live line went with the run: only the answer is left.
    expect(screen).not.toMatch(/fixme {2}(agent|landing|checks) /);
    expect(await format('#{history_size}')).toBe(history);
  }, 150_000);

  it('drain on a terminal with two lanes: one line for each working lane at once', async () => {
    const remote = await remoteWithItems([{ slug: 'east' }, { slug: 'west' }]);
    const s = await laneSession(remote, 'ttydrain');
    await inTmux(s, ['drain', '--lanes', '2', '--agent', `echo "on $ABCD_ITEM"; sleep 4; ${COMMITTING_AGENT}`]);
    await until(async () => {
      const p = await pane();
      return (
        /east {2}agent {2}\d+s {2}0 tokens {2}on local:item:east/.test(p) &&
        /west {2}agent {2}\d+s {2}0 tokens {2}on local:item:west/.test(p)
      );
    }, 'both lanes');
    await until(async () => (await pane()).includes('EXITED'), 'the drain to end');
    const screen = await pane();
    expect(screen).toContain('EXITED 0');
    expect(screen).not.toMatch(/(east|west) {2}(agent|landing|checks) /);
  }, 150_000);

  it('off a terminal: one plain line per phase change on stderr, with the usage at each; none for the agent output', async () => {
    const remote = await remoteWithItems([{ slug: 'piped' }], { land: { checks: 'true' } });
    const s = await laneSession(remote, 'pipelane');
    const r = await s.abcd(['build', 'piped', '--agent', AGENT], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('abcd: piped  '));
    expect(lines.map((l) => l.split('  ')[1])).toEqual(['agent', 'landing', 'checks', 'landing']);
    expect(lines[1]).toMatch(/^abcd: piped {2}landing {2}\d+s {2}77 tokens {2}writing the fix$/);
    expect(r.stderr).not.toContain('reading the code');
    const json = await s.abcd(['build', 'piped', '--reopen', '--json', '--agent', AGENT], { timeoutMs: 120_000 });
    expect(json.stderr).not.toContain('abcd: piped');
  }, 180_000);
});
