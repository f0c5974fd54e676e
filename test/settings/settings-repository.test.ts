// Signed settings belong to one repository (ADR 0067): each generation names main's first
// commit, and a reader that keeps the person's allowed-signers list ignores a generation signed
// for another repository, by name (settings-foreign), falling back to the last valid one.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { lsRemote, makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { makeKey, useSigningKey, writeSigners } from '../harness/signing.js';

const SETTINGS_REF = 'refs/heads/abcd/settings';

/** Gives a bare remote a main of its own: a first commit no other test remote shares. */
async function ownHistory(remote: BareRemote): Promise<void> {
  const env = { env: isolatedEnv(remote.dir), extendEnv: false };
  const blob = (await execa('git', ['-C', remote.dir, 'hash-object', '-w', '--stdin'], { ...env, input: '# scratch\n' })).stdout;
  const tree = (await execa('git', ['-C', remote.dir, 'mktree'], { ...env, input: `100644 blob ${blob}\tREADME.md\n` })).stdout;
  const commit = (await execa('git', ['-C', remote.dir, 'commit-tree', tree, '-m', 'scratch'], env)).stdout;
  await execa('git', ['-C', remote.dir, 'update-ref', 'refs/heads/main', commit], env);
}

async function personOn(remote: BareRemote, name: string, key: { path: string; pub: string }): Promise<Session> {
  const s = await makeSession(remote.url, name, { person: 'alice@example.com' });
  await writeSigners(s, [`alice@example.com ${key.pub}`]);
  await useSigningKey(s, key.path);
  return s;
}

describe('signed settings belong to one repository', () => {
  let project: BareRemote;
  let scratch: BareRemote;
  let key: { path: string; pub: string };
  let alice: Session;
  let kept: string;

  beforeAll(async () => {
    [project, scratch] = await Promise.all([makeRemote(), makeRemote()]);
    // Two test remotes made in the same second share their first commit, as a fork does.
    await ownHistory(scratch);
    key = await makeKey(await tempDir('keys'), 'alice');
    alice = await personOn(project, 'alice', key);
  });
  afterAll(cleanupTemp);

  it('a generation names the repository by main’s first commit', async () => {
    const w = await alice.abcd(['settings', 'takeover-delay', '90s', '--json']);
    expect(w.json).toMatchObject({ ok: true, signed: true, protected: true });
    kept = (await project.refs()).get(SETTINGS_REF)!;
    const record = JSON.parse((await execa('git', ['-C', project.dir, 'show', `${kept}:record.json`])).stdout);
    const root = (await execa('git', ['-C', project.dir, 'rev-list', '--max-parents=0', 'main'])).stdout.trim();
    expect(record.repository).toBe(root);
  });

  it("the person's takeover-delay 0ms signed on a scratch repository, copied here, is refused by name", async () => {
    const onScratch = await personOn(scratch, 'alice-scratch', key);
    expect((await onScratch.abcd(['settings', 'takeover-delay', '0ms', '--json'])).json).toMatchObject({ ok: true, signed: true });
    const replayed = (await scratch.refs()).get(SETTINGS_REF)!;
    // A bot with push access copies the signed commit onto this repository's settings ref.
    await execa('git', ['-C', project.dir, 'fetch', '-q', scratch.dir, `+${SETTINGS_REF}:${SETTINGS_REF}`], {
      env: isolatedEnv(project.dir),
      extendEnv: false,
    });
    expect((await project.refs()).get(SETTINGS_REF)).toBe(replayed);
    const fresh = await personOn(project, 'alice-fresh', key);
    for (const [who, s, using] of [
      ['the clone that saw the valid generation', alice, kept],
      ['a fresh clone', fresh, undefined],
    ] as const) {
      const st = await s.abcd(['status', '--json']);
      expect(st.code, who).toBe(0);
      expect(st.json.settings.takeoverDelay, who).toBe(using ? 90_000 : 60_000);
      expect(st.json.refused, who).toEqual([
        expect.objectContaining({
          ref: SETTINGS_REF,
          code: 'record-invalid',
          data: expect.objectContaining({ reason: 'settings-foreign', tip: replayed, ...(using ? { using } : {}) }),
        }),
      ]);
      expect(st.json.refused[0].message, who).toMatch(/names another repository/);
    }
  });

  it('a claim is not taken early under the replayed delay', async () => {
    const r = await alice.abcd(['reserve', 'precious', '--ttl', '1s', '--json']);
    expect(r.json).toMatchObject({ ok: true });
    const tip = (await project.refs()).get('refs/heads/abcd/claims/local/item/precious');
    const bot = await personOn(project, 'bot', key);
    await bot.git(['config', 'user.email', 'bot@elsewhere']);
    await new Promise((res) => setTimeout(res, 1300));
    await bot.abcd(['reserve', 'precious', '--json']);
    await new Promise((res) => setTimeout(res, 1300));
    const second = await bot.abcd(['reserve', 'precious', '--json']);
    expect(second.json).toMatchObject({ ok: false, refusal: { code: 'takeover-too-soon', exit: 3 } });
    expect((await project.refs()).get('refs/heads/abcd/claims/local/item/precious')).toBe(tip);
  });

  it('the person writes a new generation on top; it counts again', async () => {
    const w = await alice.abcd(['settings', 'reservation-cap', '4', '--json']);
    expect(w.json).toMatchObject({ ok: true, signed: true });
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.refused).toEqual([]);
    expect(st.json.settings).toMatchObject({ reservationCap: 4, takeoverDelay: 90_000 });
  });

  it('a torn repository.json is worked out again from main; a root the remote will not give leaves the generation ignored, the read going on', async () => {
    const fresh = await personOn(project, 'alice-torn', key);
    const file = join(await fresh.git(['rev-parse', '--git-common-dir']).then((d) => join(fresh.dir, d)), 'abcd', 'repository.json');
    expect((await fresh.abcd(['status', '--json'])).json.refused).toEqual([]);
    const root = JSON.parse(await readFile(file, 'utf8')).origin;
    await writeFile(file, '{"origin":"');
    const again = await fresh.abcd(['status', '--json']);
    expect(again.json.refused).toEqual([]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ origin: root });

    // A clone that never learnt the root, on a remote that will not serve main now.
    const blind = await personOn(project, 'alice-blind', key);
    await blind.git(['update-ref', '-d', 'refs/remotes/origin/main']);
    const remoteEnv = { env: isolatedEnv(project.dir), extendEnv: false };
    await execa('git', ['-C', project.dir, 'config', 'uploadpack.hideRefs', 'refs/heads/main'], remoteEnv);
    try {
      const st = await blind.abcd(['status', '--json']);
      expect(st.code, st.stderr).toBe(0);
      expect(st.json.settings.takeoverDelay).toBe(60_000);
      expect(st.json.refused).toEqual([
        expect.objectContaining({ ref: SETTINGS_REF, data: expect.objectContaining({ reason: 'settings-foreign' }) }),
      ]);
      expect(st.json.refused[0].message).toMatch(/main's first commit is unknown/);
    } finally {
      await execa('git', ['-C', project.dir, 'config', '--unset', 'uploadpack.hideRefs'], remoteEnv);
    }
    expect((await blind.abcd(['status', '--json'])).json.refused).toEqual([]);
  });

  it("a fork shares main's first commit: its generation, copied here, does not descend from the newest this clone saw", async () => {
    const newest = (await project.refs()).get(SETTINGS_REF)!;
    const forkDir = join(await tempDir('fork'), 'fork.git');
    const env = { env: isolatedEnv(forkDir), extendEnv: false };
    await execa('git', ['clone', '-q', '--bare', project.dir, forkDir], env);
    await execa('git', ['-C', forkDir, 'update-ref', '-d', SETTINGS_REF], env);
    const fork: BareRemote = { dir: forkDir, url: `file://${forkDir}`, refs: () => lsRemote(forkDir, isolatedEnv(forkDir)) };
    const onFork = await personOn(fork, 'alice-fork', key);
    expect((await onFork.abcd(['settings', 'takeover-delay', '0ms', '--json'])).json).toMatchObject({ ok: true, signed: true });
    const replayed = (await fork.refs()).get(SETTINGS_REF)!;
    await execa('git', ['-C', project.dir, 'fetch', '-q', forkDir, `+${SETTINGS_REF}:${SETTINGS_REF}`], {
      env: isolatedEnv(project.dir),
      extendEnv: false,
    });
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.settings.takeoverDelay).toBe(90_000);
    expect(st.json.refused).toEqual([
      expect.objectContaining({
        ref: SETTINGS_REF,
        data: expect.objectContaining({ reason: 'settings-diverged', tip: replayed, using: newest }),
      }),
    ]);
  });
});
