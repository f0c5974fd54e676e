// abcd reads the agent's head from its files, never through git in its repository. A ref the
// agent packed is found in packed-refs; a ref it made a symlink, or a .git it removed, names no
// commit: its commits are not used and what it left in the worktree lands as one commit.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { laneSession, remoteWithItems } from '../../harness/lanes.js';

// Each item's agent writes a file of its own, so each has work to land.
const COMMIT = 'echo work > "$ABCD_ITEM.txt" && git add -A && git -c commit.gpgsign=false commit -qm "agent: its own message"';

describe("the agent's head, read from its files", () => {
  afterAll(cleanupTemp);

  it('a packed ref is read; a symlinked ref or a removed .git names nothing, and the worktree lands', async () => {
    const remote = await remoteWithItems([{ slug: 'packed' }, { slug: 'linked' }, { slug: 'nogit' }]);
    const s = await laneSession(remote, 'heads');
    // What landed is one commit whose message lists the commits squashed into it.
    const landed = async () => (await execa('git', ['-C', remote.dir, 'log', '-1', '--format=%B', 'main'])).stdout;
    const build = async (item: string, agent: string) => {
      const r = await s.abcd(['build', item, '--json', '--sandbox', 'none', '--agent', agent]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      return landed();
    };
    // The loose ref is gone (ENOENT): packed-refs names the agent's commit.
    expect(await build('packed', `${COMMIT} && git pack-refs --all`)).toContain('- agent: its own message');
    // The branch's file a symlink to the commit id, no packed-refs: not a plain file, so no head.
    const link = `${COMMIT} && ref=$(git symbolic-ref HEAD) && git rev-parse HEAD > ../id && rm -f .git/$ref .git/packed-refs && ln -s "$PWD/../id" .git/$ref`;
    const linked = await build('linked', link);
    expect(linked).toMatch(/what the agent left uncommitted/);
    expect(linked).not.toContain('its own message');
    // No .git at all (lstat fails): the worktree is still read as data.
    const nogit = await build('nogit', `${COMMIT} && rm -rf .git`);
    expect(nogit).toMatch(/what the agent left uncommitted/);
    expect(nogit).not.toContain('its own message');
    const files = (await execa('git', ['-C', remote.dir, 'ls-tree', '-r', '--name-only', 'main'])).stdout.split('\n');
    expect(files.filter((f) => f.endsWith('.txt')).length).toBe(3);
  }, 120_000);
});
