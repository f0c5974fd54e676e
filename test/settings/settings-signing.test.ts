// Settings are the person's alone (ADR 0019): with an allowed-signers list in
// the person's abcd config directory, a settings generation counts only when git's own commit
// signing (ssh here, real ssh-keygen keys) signed it with a listed key. Readers fall back to
// the last valid generation and list the ignored tip under refused.
import { chmod, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { makeKey, useSigningKey, writeSigners } from '../harness/signing.js';

const SETTINGS_REF = 'refs/heads/abcd/settings';

async function remoteTip(remote: BareRemote): Promise<string | undefined> {
  return (await remote.refs()).get(SETTINGS_REF);
}

/** git's own verdict on the remote's commit, against a given list. */
async function verifyOnRemote(remote: BareRemote, oid: string, signersFile: string): Promise<number> {
  const env = isolatedEnv(await tempDir('verify'));
  const r = await execa('git', ['-C', remote.dir, '-c', `gpg.ssh.allowedSignersFile=${signersFile}`, 'verify-commit', oid], {
    env,
    extendEnv: false,
    reject: false,
  });
  return r.exitCode ?? -1;
}

describe("settings are the person's alone", () => {
  let remote: BareRemote;
  let alice: Session;
  let bot: Session;
  let aliceKey: { path: string; pub: string };
  let botKey: { path: string; pub: string };
  let signedTip: string;
  let signers: string;

  beforeAll(async () => {
    remote = await makeRemote();
    alice = await makeSession(remote.url, 'alice', { person: 'alice@example.com' });
    bot = await makeSession(remote.url, 'bot', { person: 'bot@elsewhere' });
    const keys = await tempDir('keys');
    aliceKey = await makeKey(keys, 'alice');
    botKey = await makeKey(keys, 'bot');
  });
  afterAll(cleanupTemp);

  it('without an allowed-signers list, status says the settings are unprotected (text and --json)', async () => {
    const text = await alice.abcd(['status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/settings are unprotected/);
    const json = await alice.abcd(['status', '--json']);
    expect(json.json.settingsTrust).toMatchObject({ protected: false });
    const set = await bot.abcd(['settings', 'reservation-cap', '7', '--json']);
    expect(set.json).toMatchObject({ ok: true, changed: 'reservation-cap', signed: false, protected: false });
  });

  it('the person signs a generation; the remote holds a commit git verifies against the list', async () => {
    signers = await writeSigners(alice, [`alice@example.com ${aliceKey.pub}`]);
    await useSigningKey(alice, aliceKey.path);
    const r = await alice.abcd(['settings', 'takeover-delay', '90s', '--json']);
    expect(r.json).toMatchObject({ ok: true, changed: 'takeover-delay', signed: true, protected: true });
    signedTip = (await remoteTip(remote))!;
    expect(r.json.generation).toBe(signedTip);
    expect(await verifyOnRemote(remote, signedTip, signers)).toBe(0);
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.settingsTrust).toMatchObject({ protected: true, generation: signedTip });
    expect(st.json.settings.takeoverDelay).toBe(90_000);
    expect(st.json.refused).toEqual([]);
    expect((await alice.abcd(['status'])).stdout).not.toMatch(/unprotected/);
  });

  it('an unsigned generation is ignored: readers keep the last valid one and list the tip under refused', async () => {
    const w = await bot.abcd(['settings', 'takeover-delay', '0s', '--json']);
    expect(w.json).toMatchObject({ ok: true, signed: false });
    const forged = (await remoteTip(remote))!;
    expect(forged).not.toBe(signedTip);
    const st = await alice.abcd(['status', '--json']);
    expect(st.code).toBe(0);
    expect(st.json.settings.takeoverDelay).toBe(90_000);
    expect(st.json.settingsTrust.generation).toBe(signedTip);
    expect(st.json.refused).toEqual([
      expect.objectContaining({
        ref: SETTINGS_REF,
        code: 'record-invalid',
        data: expect.objectContaining({ reason: 'settings-unsigned', tip: forged, using: signedTip }),
      }),
    ]);
    const read = await alice.abcd(['settings', '--json']);
    expect(read.json).toMatchObject({
      ok: true,
      settings: { takeoverDelay: 90_000 },
      generation: signedTip,
      refused: [expect.objectContaining({ tip: forged })],
    });
  });

  it('a generation signed by a key not on the list is ignored too', async () => {
    await useSigningKey(bot, botKey.path);
    const w = await bot.abcd(['settings', 'takeover-delay', '1s', '--json']);
    expect(w.json).toMatchObject({ ok: true, signed: true });
    const forged = (await remoteTip(remote))!;
    expect(await verifyOnRemote(remote, forged, signers)).not.toBe(0);
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.settings.takeoverDelay).toBe(90_000);
    expect(st.json.refused[0]).toMatchObject({ ref: SETTINGS_REF, data: { reason: 'settings-untrusted', tip: forged, using: signedTip } });
  });

  it("a forged takeover-delay 0 does not let a session that keeps the person's list take a claim early", async () => {
    // The bot's own abcd now reads with the person's list (as every session of the project should).
    await writeSigners(bot, [`alice@example.com ${aliceKey.pub}`]);
    await bot.git(['config', '--unset', 'user.signingkey']);
    const r = await alice.abcd(['reserve', 'precious', '--ttl', '1s', '--json']);
    expect(r.json).toMatchObject({ ok: true });
    const claimTip = (await remote.refs()).get('refs/heads/abcd/claims/local/item/precious');
    await new Promise((res) => setTimeout(res, 1300));
    const first = await bot.abcd(['reserve', 'precious', '--json']);
    await new Promise((res) => setTimeout(res, 1300));
    const second = await bot.abcd(['reserve', 'precious', '--json']);
    expect(first.json?.ok).toBe(false);
    expect(second.json).toMatchObject({ ok: false, refusal: { code: 'takeover-too-soon', exit: 3 } });
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/precious')).toBe(claimTip);
  });

  it('a session whose key is not on the list cannot write protected settings; the remote is unchanged', async () => {
    const before = await remoteTip(remote);
    await useSigningKey(bot, botKey.path);
    const r = await bot.abcd(['settings', 'takeover-delay', '0s', '--json']);
    expect(r.code).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'settings-signer-not-allowed' } });
    expect(await remoteTip(remote)).toBe(before);
  });

  it('without signing set up, a protected settings write refuses with a clear message and writes nothing', async () => {
    const before = await remoteTip(remote);
    await bot.git(['config', '--unset', 'user.signingkey']);
    await bot.git(['config', 'gpg.format', 'ssh']);
    const r = await bot.abcd(['settings', 'reservation-cap', '9']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/could not sign the settings generation/);
    expect(r.stderr).toMatch(/user\.signingkey/);
    expect(await remoteTip(remote)).toBe(before);
  });

  it("a lane never writes settings, even with the person's key", async () => {
    const before = await remoteTip(remote);
    const r = await alice.abcd(['settings', 'reservation-cap', '9', '--json'], { env: { ABCD_LANE: 'drain-1' } });
    expect(r.code).toBe(7);
    expect(r.json.refusal.data).toMatchObject({ reason: 'lane-writes-settings' });
    expect(await remoteTip(remote)).toBe(before);
  });

  it('the person writes over a forged tip; the new signed generation counts again', async () => {
    const r = await alice.abcd(['settings', 'reservation-cap', '4', '--json']);
    expect(r.json).toMatchObject({ ok: true, signed: true });
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.refused).toEqual([]);
    expect(st.json.settings).toMatchObject({ reservationCap: 4, takeoverDelay: 90_000 });
    expect(st.json.settingsTrust.generation).toBe(await remoteTip(remote));
  });

  it('a verified tip is cached under the git dir: reading it again needs no verification', async () => {
    // A PATH where git runs but ssh-keygen is missing: any verification would now fail.
    const bin = await tempDir('bin-git-only');
    const gitPath = (await execa('sh', ['-c', 'command -v git'])).stdout.trim();
    await symlink(gitPath, join(bin, 'git'));
    const noKeygen = { PATH: bin };
    const cached = await alice.abcd(['status', '--json'], { env: noKeygen });
    expect(cached.json.refused).toEqual([]);
    expect(cached.json.settings.reservationCap).toBe(4);
    // The same read with the cache gone does verify, fails without ssh-keygen, and falls back.
    const gitDir = await alice.git(['rev-parse', '--absolute-git-dir']);
    await rm(join(gitDir, 'abcd', 'settings-trust.json'));
    const uncached = await alice.abcd(['status', '--json'], { env: noKeygen });
    expect(uncached.json.refused[0]).toMatchObject({ ref: SETTINGS_REF, data: { reason: 'settings-untrusted' } });
  });

  it('a list others may write is refused by name (exit 7)', async () => {
    await chmod(signers, 0o666);
    const r = await alice.abcd(['status', '--json']);
    expect(r.code).toBe(7);
    expect(r.json.refusal.data).toMatchObject({ reason: 'allowed-signers-writable', path: signers });
    await chmod(signers, 0o644);
  });

  it('a ref moved back to an older signed generation, or deleted, does not undo what this clone saw', async () => {
    const newest = (await remoteTip(remote))!;
    expect((await alice.abcd(['status', '--json'])).json.settings.reservationCap).toBe(4);
    // Someone with push access moves the ref back to the first signed generation (cap 7).
    await execa('git', ['-C', remote.dir, 'update-ref', SETTINGS_REF, signedTip], { env: isolatedEnv(remote.dir), extendEnv: false });
    const back = await alice.abcd(['status', '--json']);
    expect(back.json.settings.reservationCap).toBe(4);
    expect(back.json.settingsTrust.generation).toBe(newest);
    expect(back.json.refused[0]).toMatchObject({
      ref: SETTINGS_REF,
      data: { reason: 'settings-rolled-back', tip: signedTip, using: newest },
    });
    await execa('git', ['-C', remote.dir, 'update-ref', '-d', SETTINGS_REF], { env: isolatedEnv(remote.dir), extendEnv: false });
    const gone = await alice.abcd(['status', '--json']);
    expect(gone.json.settings.reservationCap).toBe(4);
    expect(gone.json.refused[0]).toMatchObject({ ref: SETTINGS_REF, data: { reason: 'settings-rolled-back', using: newest } });
  });
});

describe('settings signed with OpenPGP', () => {
  let remote: BareRemote;
  let alice: Session;
  let gnupgHome: string;
  const gpg = (args: string[]) =>
    execa('gpg', ['--batch', '--passphrase', '', ...args], { env: { ...alice.env, GNUPGHOME: gnupgHome }, extendEnv: false });
  const fingerprint = async (who: string) =>
    (await gpg(['--list-keys', '--with-colons', who])).stdout
      .split('\n')
      .find((l) => l.startsWith('fpr'))!
      .split(':')[9]!;

  beforeAll(async () => {
    remote = await makeRemote();
    gnupgHome = join(await tempDir('gpg'), 'g');
    await mkdir(gnupgHome, { mode: 0o700 });
    alice = await makeSession(remote.url, 'alice', { person: 'alice@example.com', env: { GNUPGHOME: gnupgHome } });
    await gpg(['--quick-gen-key', 'Alice <alice@example.com>', 'ed25519', 'sign', 'never']);
    // Another key in the same keyring: git calls its signatures good, the list does not.
    await gpg(['--quick-gen-key', 'Mallory <mallory@example.com>', 'ed25519', 'sign', 'never']);
  });
  afterAll(async () => {
    await execa('gpgconf', ['--kill', 'gpg-agent'], { env: { ...alice.env, GNUPGHOME: gnupgHome }, extendEnv: false, reject: false });
    await cleanupTemp();
  });

  it('a generation signed by the listed gpg key counts; one signed by another key in the keyring does not', async () => {
    const aliceFpr = await fingerprint('alice@example.com');
    await writeSigners(alice, [`alice@example.com gpg ${aliceFpr}`]);
    await alice.git(['config', 'gpg.format', 'openpgp']);
    await alice.git(['config', 'user.signingkey', aliceFpr]);
    const w = await alice.abcd(['settings', 'takeover-delay', '2m', '--json']);
    expect(w.json).toMatchObject({ ok: true, signed: true, protected: true });
    const good = (await remoteTip(remote))!;
    // Mallory's key is in the same keyring, so git verify-commit itself would accept it.
    await alice.git(['config', 'user.signingkey', await fingerprint('mallory@example.com')]);
    const refused = await alice.abcd(['settings', 'takeover-delay', '0s', '--json']);
    expect(refused.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'settings-signer-not-allowed' } });
    expect(await remoteTip(remote)).toBe(good);
    // Written behind abcd's back (no list in that clone): readers with the list ignore it.
    const other = await makeSession(remote.url, 'mallory', { person: 'mallory@example.com', env: { GNUPGHOME: gnupgHome } });
    await other.git(['config', 'gpg.format', 'openpgp']);
    await other.git(['config', 'user.signingkey', await fingerprint('mallory@example.com')]);
    expect((await other.abcd(['settings', 'takeover-delay', '0s', '--json'])).json).toMatchObject({ ok: true, signed: true });
    const forged = (await remoteTip(remote))!;
    expect(
      await execa('git', ['-C', remote.dir, 'verify-commit', forged], {
        env: { ...alice.env, GNUPGHOME: gnupgHome },
        extendEnv: false,
        reject: false,
      }).then((r) => r.exitCode),
    ).toBe(0);
    const st = await alice.abcd(['status', '--json']);
    expect(st.json.settings.takeoverDelay).toBe(120_000);
    expect(st.json.settingsTrust.generation).toBe(good);
    expect(st.json.refused[0]).toMatchObject({ ref: SETTINGS_REF, data: { reason: 'settings-untrusted', tip: forged, using: good } });
  });
});
