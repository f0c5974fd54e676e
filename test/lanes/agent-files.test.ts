// The files abcd shares with the agent, after the agent replaced them: gone, a symlink out of the
// sandbox, a folder, a fifo. abcd neither follows nor fails on any of them; a plain file is
// appended to and read as written.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { agentFileSize, appendToAgentFile, readAgentFile } from '../../src/lanes/run/agent-files.js';

afterAll(cleanupTemp);

describe('files shared with the agent', () => {
  it('a plain file is appended to, read and measured', async () => {
    const dir = await tempDir('agent-files');
    const path = join(dir, 'mailbox');
    await writeFile(path, 'one\n');
    expect(appendToAgentFile(path, 'two\n')).toBe(true);
    expect(await readAgentFile(path)).toBe('one\ntwo\n');
    expect(agentFileSize(path)).toBe(8);
    // A bug (text that is not text) is thrown on, not taken for a file the agent replaced.
    expect(() => appendToAgentFile(path, 42 as unknown as string)).toThrow(TypeError);
  });

  it('gone, a symlink, a folder, a fifo or a path through a file: false, empty, 0, and nothing written outside', async () => {
    const dir = await tempDir('agent-files-replaced');
    const outside = join(dir, 'outside.txt');
    await writeFile(outside, 'secret\n');
    const link = join(dir, 'link');
    await symlink(outside, link);
    const folder = join(dir, 'folder');
    await mkdir(folder);
    const fifo = join(dir, 'fifo');
    await execa('mkfifo', [fifo]);
    const gone = join(dir, 'gone');
    const through = join(outside, 'under-a-file');
    for (const path of [gone, link, folder, fifo, through]) {
      expect.soft(appendToAgentFile(path, 'steer\n'), path).toBe(false);
      expect.soft(await readAgentFile(path), path).toBe('');
      expect.soft(agentFileSize(path), path).toBe(0);
    }
    expect(await readFile(outside, 'utf8')).toBe('secret\n');
  });
});
