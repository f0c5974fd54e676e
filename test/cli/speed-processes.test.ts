// What a file answers starts no git process: the everyday verbs read the clone's dirs, config,
// record refs and the records they read before from its files, and hand anything unusual
// (an include in the person's config) to git with the same answers.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { lastJson, makeSession, type Json } from '../harness/session.js';

/** A session whose git calls are logged, the subcommand of each, so a test sees which ran. */
async function logged(url: string, name: string) {
  const bin = await tempDir('gitlog');
  const log = join(bin, 'log');
  await writeFile(
    join(bin, 'git'),
    `#!/bin/sh\n[ "$1" = -C ] && shift 2\nwhile [ "$1" = -c ]; do shift 2; done\necho "$1" >> ${log}\nexec /usr/bin/git "$@"\n`,
    {
      mode: 0o755,
    },
  );
  const s = await makeSession(url, name);
  const run = async (args: string[], extra: Record<string, string> = {}) => {
    await writeFile(log, '');
    const r = await s.abcd(args, { env: { PATH: `${bin}:${s.env.PATH}`, ...extra } });
    return { ...r, git: (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
  };
  return { s, run };
}

describe('processes of the everyday verbs', () => {
  afterAll(cleanupTemp);

  it('status with nothing new is one fetch; reserve of a free item one push; announce writes its record in process', async () => {
    const remote = await makeRemote();
    const { s, run } = await logged(remote.url, 'solo');
    expect((await s.abcd(['status'])).code).toBe(0);
    const reserved = await run(['reserve', 'fast', '--json']);
    expect(reserved.code, reserved.stderr).toBe(0);
    expect(reserved.git).toEqual(['push']);
    const said = await run(['announce', 'working', 'fast', 'on it', '--json']);
    expect(said.code, said.stderr).toBe(0);
    // No plumbing: the record's objects are written in process, and the claim reserve pushed
    // is kept from the objects it wrote, so no verb reads back a record this clone wrote.
    expect(said.git).toEqual(['fetch', 'push']);
    const first = await run(['status', '--json']);
    expect(first.git).toEqual(['fetch']);
    const again = await run(['status', '--json']);
    expect(again.git).toEqual(['fetch']);
    const view = lastJson(again.stdout) as Json;
    expect(view.claims.map((c: Json) => c.item)).toEqual(['fast']);
    expect(view.announcements.map((a: Json) => a.text)).toEqual(['on it']);
    // The read from kept tips answers what the read that asked git answered (times aside).
    const timeless = (j: Json) => JSON.stringify(j, (k, v: unknown) => (/Ms$|^readAt$/.test(k) ? undefined : v));
    expect(timeless(lastJson(first.stdout))).toEqual(timeless(view));
    expect(view.claims[0].claimTip).toMatch(/^[0-9a-f]{40}$/);
    // The announcement's commit is one git itself reads back as a record commit.
    const tip = (await remote.refs()).get(view.announcements[0].ref);
    expect(await s.git(['cat-file', '-t', String(tip)])).toBe('commit');
    expect(await s.git(['ls-tree', '--name-only', String(tip)])).toBe('record.json');
  });

  it("an include in the clone's config is read by git, and the verbs answer the same", async () => {
    const remote = await makeRemote();
    const { s, run } = await logged(remote.url, 'incl');
    const inc = join(s.env.HOME ?? '', 'more.gitconfig');
    await writeFile(inc, '[user]\n\tname = Included Name\n');
    await s.git(['config', 'include.path', inc]); // after the clone's own user.name: it wins
    const r = await run(['reserve', 'inc', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.git.slice(0, 2).sort()).toEqual(['config', 'rev-parse']);
    const st = await run(['status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect((lastJson(st.stdout) as Json).claims.map((c: Json) => c.item)).toEqual(['inc']);
    // The record was written with the included name: git's answer, not the files'.
    const tip = (await remote.refs()).get('refs/heads/abcd/claims/local/item/inc');
    expect(await s.git(['log', '-1', '--format=%an', String(tip)])).toBe('Included Name');
  });
});
