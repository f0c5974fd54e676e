// A snapshot is built once, finished: the settings trust check is an input of its
// construction, so what a reader gets has judged settings and cannot be changed afterwards.
import { describe, expect, it } from 'vitest';
import { encodeClaim, type Claim } from '../../src/records/claim.js';
import { RecordInvalid } from '../../src/core/refusals.js';
import { DEFAULT_SETTINGS } from '../../src/records/settings.js';
import { buildSnapshot, type SettingsJudge } from '../../src/repo/snapshot.js';
import { unprotectedSettings } from '../../src/repo/settings-trust/trust.js';

const SETTINGS_REF = 'refs/heads/abcd/settings';
const CLAIM_REF = 'refs/heads/abcd/claims/local/item/page';
const TIP = 'a'.repeat(40);
const NOW = Date.UTC(2026, 11, 1);
const holder = { person: 'p@example.com', host: 'h', session: 's' };
const claim: Claim = { abcd: 'claim', v: 1, item: 'local:item:page', state: 'held', holder, gen: 1, at: NOW, ttl: 60_000 };
const forged = JSON.stringify({
  abcd: 'settings',
  v: 1,
  reservationCap: 7,
  defaultTtl: 1000,
  takeoverDelay: 0,
  doneRetention: 1000,
  at: NOW,
  by: holder,
});

function raws(settings: string) {
  return [
    { ref: CLAIM_REF, tip: 'c'.repeat(40), blob: Buffer.from(encodeClaim(claim)) },
    { ref: SETTINGS_REF, tip: TIP, blob: Buffer.from(settings) },
  ];
}

/** A judge that finds the tip not the person's: the defaults count, the tip is named as ignored. */
const distrusting: SettingsJudge = (c) =>
  Promise.resolve({
    settings: { ...DEFAULT_SETTINGS },
    trust: { protected: true, signers: '/list' },
    ignored: {
      ref: SETTINGS_REF,
      tip: c.tip ?? '',
      refusal: new RecordInvalid('not signed', { ref: SETTINGS_REF, reason: 'settings-unsigned' }),
    },
  });

describe('building a snapshot', () => {
  it("uses the judge's verdict, not the decoded tip: an unsigned tip never reaches a reader", async () => {
    const snap = await buildSnapshot(raws(forged), { readAt: NOW, judge: distrusting });
    expect(snap.settings).toEqual(DEFAULT_SETTINGS);
    expect(snap.settingsEntry).toBeUndefined();
    expect(snap.settingsTip).toBe(TIP);
    expect(snap.settingsIgnored?.refusal.data).toMatchObject({ reason: 'settings-unsigned' });
    expect(snap.settingsTrust).toEqual({ protected: true, signers: '/list' });
    expect(snap.claims.get(CLAIM_REF)?.claim).toEqual(claim);
  });

  it('without a list the tip counts as decoded and is shown unprotected', async () => {
    const snap = await buildSnapshot(raws(forged), { readAt: NOW, judge: unprotectedSettings('/list') });
    expect(snap.settings).toMatchObject({ reservationCap: 7, takeoverDelay: 0 });
    expect(snap.settingsEntry?.tip).toBe(TIP);
    expect(snap.settingsTrust).toEqual({ protected: false, signers: '/list', generation: TIP });
  });

  it('a settings tip that does not decode is refused when it stands, and dropped when the judge ignores it', async () => {
    const tooNew = JSON.stringify({ abcd: 'settings', v: 9 });
    const stands = await buildSnapshot(raws(tooNew), { readAt: NOW, judge: unprotectedSettings('/list') });
    expect(stands.refused.get(SETTINGS_REF)?.refusal.code).toBe('record-too-new');
    expect(stands.settings).toEqual(DEFAULT_SETTINGS);
    const ignored = await buildSnapshot(raws(tooNew), { readAt: NOW, judge: distrusting });
    expect(ignored.refused.has(SETTINGS_REF)).toBe(false);
    expect(ignored.settingsIgnored?.tip).toBe(TIP);
  });

  it('is finished: the snapshot and its settings are frozen', async () => {
    const snap = await buildSnapshot(raws(forged), { readAt: NOW, judge: unprotectedSettings('/list') });
    expect(Object.isFrozen(snap)).toBe(true);
    expect(Object.isFrozen(snap.settings)).toBe(true);
    expect(() => {
      (snap as { settings: unknown }).settings = DEFAULT_SETTINGS;
    }).toThrow(TypeError);
  });
});
