// A runtime's model key read from a file its `keyFile` setting names: the real Claude Code and
// Codex CLIs in bubblewrap lanes, abcd's environment holding no key at all. The model server gets
// the file's key on every request, through the gateway; the agent holds a placeholder, and the
// file (in a folder no sandbox empties on its own) cannot be read inside. A file abcd will not
// read is refused by name before anything is claimed.
import { execa } from 'execa';
import { access, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import { laneSession, remoteWithItems } from '../../harness/lanes.js';
import { AnthropicStub, answer, tool, toolStep } from '../../harness/model-server-anthropic.js';
import { OpenAiModelServer } from '../../harness/model-server-openai.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin');
const PATH = `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`;
const CLAUDE = join(BIN, 'claude');
const FILE_KEY = 'canary-key-from-file-7f3a';
const PLACEHOLDER = 'abcd-model-gateway-placeholder';

const made: string[] = [];
afterAll(async () => {
  await cleanupTemp();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/** A 0600 key file in a folder no sandbox hides on its own (/tmp, /var/tmp and HOME it does). */
async function keyFile(content = `${FILE_KEY}\n`): Promise<string> {
  let base = join(import.meta.dirname, '..', '..', '..');
  if (
    await access('/var/cache', constants.W_OK).then(
      () => true,
      () => false,
    )
  )
    base = '/var/cache';
  const dir = await mkdtemp(join(base, 'abcd-key-'));
  made.push(dir);
  const file = join(dir, 'model-key');
  await writeFile(file, content, { mode: 0o600 });
  return file;
}

async function onMain(remote: { dir: string }, file: string): Promise<string> {
  return (await execa('git', ['-C', remote.dir, 'show', `main:${file}`])).stdout;
}

describe('a model key from a file', () => {
  it('claude: the server gets the file key through the gateway; the agent has a placeholder and cannot read the file', async () => {
    const stub = await AnthropicStub.start();
    try {
      const file = await keyFile();
      const remote = await remoteWithItems([{ slug: 'filed' }], {
        lanes: { claude: { program: CLAUDE, model: 'claude-sonnet-4-5', keyFile: file } },
      });
      stub.on('local:item:filed', [
        toolStep(tool.bash(`{ env; echo "file:[$(cat ${file} 2>&1)]"; } > seen.txt; git add seen.txt && git commit -qm "claude: seen"`), {
          input: 300,
          output: 10,
        }),
        answer('done', { input: 320, output: 4 }),
      ]);
      const s = await laneSession(remote, 'filed', { ANTHROPIC_BASE_URL: stub.url });
      const r = await s.abcd(['drain', '--runtime', 'claude', '--json'], { timeoutMs: 240_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json.sandbox).toBe('bwrap');
      stub.verify();
      const posts = stub.requests.filter((q) => q.method === 'POST');
      expect(posts.length).toBeGreaterThan(0);
      expect(new Set(posts.map((q) => q.key))).toEqual(new Set([FILE_KEY]));
      const seen = await onMain(remote, 'seen.txt');
      expect(seen).toContain(`ANTHROPIC_API_KEY=${PLACEHOLDER}`);
      // The file's place is bound to /dev/null on a mount that opens no device: nothing to read.
      expect(seen).toContain(`file:[cat: ${file}: Permission denied]`);
      expect(seen).not.toContain(FILE_KEY);
    } finally {
      await stub.close();
    }
  }, 300_000);

  it("codex: the chosen provider's key is the file's; the agent's env and config hold none of it, and the file cannot be read", async () => {
    const file = await keyFile();
    const server = await OpenAiModelServer.start([
      {
        exec: `{ env; cat "$CODEX_HOME/config.toml"; echo "file:[$(cat ${file} 2>&1)]"; } > seen.txt; git add seen.txt && git commit -qm "codex: seen"`,
      },
      { say: 'looked' },
    ]);
    try {
      const team = await tempDir('codex-team');
      await writeFile(join(team, 'config.toml'), server.codexConfig({ model: 'stub-codex', envKey: 'TEAM_OPENAI_KEY' }));
      const remote = await remoteWithItems([{ slug: 'filed' }], { lanes: { codex: { keyFile: file } } });
      const lane = await laneSession(remote, 'lane', { CODEX_HOME: team, PATH });
      const r = await lane.abcd(['drain', '--runtime', 'codex', '--json', '--agent-timeout', '120s'], { timeoutMs: 150_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap' });
      server.verify({ allStepsUsed: true });
      expect(server.requests.map((q) => q.key)).toEqual([FILE_KEY, FILE_KEY]);
      const seen = await onMain(remote, 'seen.txt');
      expect(seen).toContain(`TEAM_OPENAI_KEY=${PLACEHOLDER}`);
      expect(seen).toContain(`file:[cat: ${file}: Permission denied]`);
      expect(seen).not.toContain(FILE_KEY);
    } finally {
      await server.stop();
    }
  }, 180_000);

  it.each([
    ['too-loose', 0o644, `${FILE_KEY}\n`, 'chmod 600'],
    ['empty', 0o600, '\n', 'Put the model key in it'],
  ] as const)(
    'a key file refused as %s: named, before anything is claimed',
    async (reason, mode, content, fix) => {
      const file = await keyFile(content);
      await chmod(file, mode);
      const remote = await remoteWithItems([{ slug: 'kept' }], { lanes: { claude: { program: CLAUDE, keyFile: file } } });
      const s = await laneSession(remote, 'refused', { PATH });
      const before = await remote.refs();
      const r = await s.abcd(['drain', '--runtime', 'claude', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.json.refusal).toMatchObject({ code: 'usage', data: { key: 'lanes.claude.keyFile', path: file, reason } });
      expect(r.json.refusal.message).toContain(fix);
      expect(r.json.refusal.message).toContain('nothing was claimed');
      expect(r.json.refusal.message).not.toContain(FILE_KEY);
      expect(await remote.refs()).toEqual(before);
    },
    60_000,
  );

  it('a missing key file, and a key file with no sandbox (so no gateway), are refused before anything is claimed', async () => {
    const remote = await remoteWithItems([{ slug: 'kept' }], { lanes: { codex: { keyFile: '~/no-such-key' } } });
    const s = await laneSession(remote, 'refused', { PATH });
    const before = await remote.refs();
    const missing = await s.abcd(['drain', '--runtime', 'codex', '--json']);
    expect(missing.code, missing.stdout + missing.stderr).toBe(2);
    expect(missing.json.refusal.data).toMatchObject({ key: 'lanes.codex.keyFile', reason: 'missing' });
    const bare = await s.abcd(['drain', '--runtime', 'codex', '--sandbox', 'none', '--json']);
    expect(bare.code, bare.stdout + bare.stderr).toBe(2);
    expect(bare.json.refusal.data).toMatchObject({ key: 'lanes.codex.keyFile', reason: 'no-gateway' });
    expect(await remote.refs()).toEqual(before);
  }, 60_000);
});
