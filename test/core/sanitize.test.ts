// Hostile text from records and the remote never reaches a terminal raw:
// terminal escapes (OSC title, CSI clear, the one-byte C1 CSI 0x9b), bidi overrides and
// zero-width characters are removed from text output and escaped in JSON output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { makeSession, type AbcdRun, type Session } from '../harness/session.js';
import { hasUnsafeCharacters, sanitizeLine, sanitizeText } from '../../src/core/sanitize.js';

const OSC_TITLE = '\u001b]2;PWNED\u0007';
const CSI_CLEAR = '\u001b[2J';
const RLO = '\u202e';
const ZWSP = '\u200b';
const C1_CSI = '\u009b';
const HOSTILE = `${OSC_TITLE}${CSI_CLEAR}${RLO}gnp.exe${ZWSP}${C1_CSI}31m`;

// Any of these on stdout or stderr is a break: ESC, BEL, C1, bidi controls, zero-width.
// eslint-disable-next-line no-control-regex -- these characters are what the test forbids
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

function expectClean(r: AbcdRun): void {
  for (const [name, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    const m = FORBIDDEN.exec(text);
    expect(m, `${name} holds U+${m?.[0].codePointAt(0)?.toString(16).padStart(4, '0')}: ${JSON.stringify(text.slice(0, 400))}`).toBeNull();
  }
}

function claimBlob(o: { item: string; person?: string; note?: string; branch?: string }): string {
  return JSON.stringify({
    abcd: 'claim',
    v: 1,
    item: o.item,
    state: 'held',
    holder: { person: o.person ?? 'mallory@example.com', host: 'box', session: 's1' },
    gen: 1,
    at: Date.now(),
    ttl: 3_600_000,
    ...(o.note !== undefined ? { note: o.note } : {}),
    ...(o.branch !== undefined ? { branch: o.branch } : {}),
  });
}

describe('sanitize (units)', () => {
  it('removes controls, C1, bidi and zero-width characters from one line', () => {
    const out = sanitizeLine(HOSTILE);
    expect(FORBIDDEN.test(out)).toBe(false);
    expect(out).toContain('PWNED');
    expect(hasUnsafeCharacters(HOSTILE)).toBe(true);
    expect(hasUnsafeCharacters(out)).toBe(false);
  });

  it('keeps newlines and tabs in multi-line text, and removes the rest', () => {
    const out = sanitizeText(`a\tb\r\nc${HOSTILE}\u2028d`);
    expect(out.startsWith('a\tb\nc')).toBe(true);
    expect(FORBIDDEN.test(out)).toBe(false);
    expect(out).not.toContain('\u2028');
  });

  it('removes lone surrogates and the other invisible formatters', () => {
    const out = sanitizeLine(`x\ud800y\u2066z\u00adw\ufeffv\u034fu\ufe0ft`);
    // eslint-disable-next-line no-misleading-character-class -- each invisible mark listed alone on purpose
    expect(out).not.toMatch(/[\ud800-\udfff\u2066\u00ad\ufeff\u034f\ufe0f]/);
  });
});

describe('hostile records reach no terminal raw', () => {
  let remote: BareRemote;
  let s: Session;
  beforeAll(async () => {
    remote = await makeRemote();
    // A blob that is not JSON: the parse error quotes it.
    await writeRawRecord(remote.dir, 'refs/heads/abcd/claims/local/item/blob-bomb', `${HOSTILE}{"abcd":`);
    // A valid claim whose note and holder carry what the schema lets through (C1, bidi, zero-width).
    await writeRawRecord(
      remote.dir,
      'refs/heads/abcd/claims/local/item/noted',
      claimBlob({
        item: 'local:item:noted',
        person: `m${RLO}${ZWSP}${C1_CSI}@example.com`,
        note: `${RLO}${ZWSP}${C1_CSI}2J`,
        branch: HOSTILE,
      }),
    );
    // A ref name git accepts that carries bidi, zero-width and C1 characters.
    await writeRawRecord(remote.dir, `refs/heads/abcd/claims/local/item/x${RLO}${ZWSP}${C1_CSI}y`, claimBlob({ item: 'local:item:x' }));
    // A schema error whose zod issue names a hostile key.
    await writeRawRecord(
      remote.dir,
      'refs/heads/abcd/claims/local/item/bad-shape',
      JSON.stringify({ abcd: 'claim', v: 1, [HOSTILE]: 1, state: HOSTILE }),
    );
    s = await makeSession(remote.url, 'una');
  });
  afterAll(cleanupTemp);

  it('status (text) lists every hostile record without a raw escape, bidi or zero-width character', async () => {
    const r = await s.abcd(['status']);
    expect(r.code).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain('blob-bomb');
    expect(r.stdout).toContain('PWNED');
  });

  it('status --json escapes them: the answer parses back to the records as written', async () => {
    const r = await s.abcd(['status', '--json']);
    expect(r.code).toBe(0);
    expectClean(r);
    const noted = r.json.claims.find((c: { item: string }) => c.item === 'noted');
    expect(noted.note).toBe(`${RLO}${ZWSP}${C1_CSI}2J`);
    expect(noted.branch).toBe(HOSTILE);
    const refused = r.json.refused.map((x: { ref: string }) => x.ref);
    expect(refused).toContain('refs/heads/abcd/claims/local/item/blob-bomb');
    for (const x of r.json.refused) expect(hasUnsafeCharacters(x.message)).toBe(false);
  });

  it('reserve of a hostile record refuses by name without a raw escape (text and --json)', async () => {
    const text = await s.abcd(['reserve', 'blob-bomb']);
    expect(text.code).toBe(8);
    expect(text.stderr).toContain('blob-bomb');
    expectClean(text);
    const json = await s.abcd(['reserve', 'blob-bomb', '--json']);
    expect(json.json).toMatchObject({ ok: false, refusal: { code: 'record-invalid', exit: 8 } });
    expectClean(json);
    expect(hasUnsafeCharacters(json.json.refusal.message)).toBe(false);
  });

  it('reserve of an item held by a hostile holder names the holder safely', async () => {
    const text = await s.abcd(['reserve', 'noted']);
    expect(text.code).toBe(3);
    expectClean(text);
    const json = await s.abcd(['reserve', 'noted', '--json']);
    expect(json.json).toMatchObject({ ok: false, refusal: { code: 'held', exit: 3 } });
    expectClean(json);
  });

  it('reserve of a schema-broken record names the issue safely', async () => {
    const r = await s.abcd(['reserve', 'bad-shape']);
    expect(r.code).toBe(8);
    expectClean(r);
  });
});
