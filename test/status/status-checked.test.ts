// A read keeps, in the clone's own git folder, which record tips this build has decoded, so the
// next read decodes them with no schema; the file names the build, and another build ignores it.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { MAX_NOTE_CHARS } from '../../src/records/limits.js';

const BUILD_ID = resolve(import.meta.dirname, '../../dist/bundle/build-id');
const FORGED_REF = 'refs/heads/abcd/claims/local/item/forged';

/** Pushes a claim record holding `json` as someone with push access could, straight with git. */
async function pushRecord(s: Session, ref: string, json: string): Promise<string> {
  const run = (args: string[], input?: string) =>
    execa('git', ['-C', s.dir, ...args], { env: s.env, extendEnv: false, ...(input !== undefined ? { input } : {}) });
  const blob = (await run(['hash-object', '-w', '--stdin'], json)).stdout.trim();
  const tree = (await run(['mktree'], `100644 blob ${blob}\trecord.json\n`)).stdout.trim();
  const commit = (await run(['commit-tree', tree, '-m', 'record'])).stdout.trim();
  await run(['push', '-q', 'origin', `${commit}:${ref}`]);
  return commit;
}

describe('the record tips a build checked', () => {
  afterAll(cleanupTemp);

  it('are kept under the build that checked them, and no other build trusts them', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'checker');
    expect((await s.abcd(['reserve', 'page', '--json'])).code).toBe(0);
    const first = await s.abcd(['status', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const build = (await readFile(BUILD_ID, 'latin1')).trim();
    const file = join(s.dir, '.git', 'abcd', 'record-checked');
    const claimTip = first.json.claims[0].claimTip as string;
    expect(await readFile(file, 'latin1')).toBe(`abcd-record-checked 1 ${build}\n${claimTip} claim\n`);

    // A record the schema refuses (its note is too long), pushed by a stranger: refused, and never kept as checked.
    const hostile = JSON.stringify({
      abcd: 'claim',
      v: 1,
      item: 'local:item:forged',
      state: 'held',
      holder: { person: 'x@example.com', host: 'h', session: 's' },
      gen: 1,
      at: Date.now(),
      ttl: 60_000,
      note: 'n'.repeat(MAX_NOTE_CHARS + 1),
    });
    const forgedTip = await pushRecord(s, FORGED_REF, hostile);
    const refused = await s.abcd(['status', '--json']);
    expect(refused.json.refused).toEqual([expect.objectContaining({ ref: FORGED_REF, code: 'record-invalid' })]);
    expect(await readFile(file, 'latin1')).not.toContain(forgedTip);

    // The file is trusted as the clone's own git folder is: a tip it names is read with no schema.
    await writeFile(file, `abcd-record-checked 1 ${build}\n${claimTip} claim\n${forgedTip} claim\n`);
    const trusted = await s.abcd(['status', '--json']);
    expect(trusted.json.refused).toEqual([]);
    expect(trusted.json.claims.map((c: { item: string }) => c.item).sort()).toEqual(['forged', 'page']);

    // Another build (another version, other schemas) ignores the file and checks every record.
    await writeFile(file, `abcd-record-checked 1 ${'0'.repeat(32)}\n${claimTip} claim\n${forgedTip} claim\n`);
    const other = await s.abcd(['status', '--json']);
    expect(other.json.refused).toEqual([expect.objectContaining({ ref: FORGED_REF, code: 'record-invalid' })]);
    expect(other.json.claims.map((c: { item: string }) => c.item)).toEqual(['page']);
    expect(await readFile(file, 'latin1')).toBe(`abcd-record-checked 1 ${build}\n${claimTip} claim\n`);
  });
});
