// ssh must never prompt: an agent has nobody to answer "continue connecting (yes/no)?" or a
// passphrase, and a prompt would hang the verb until its deadline. abcd runs git in a session
// of its own (no controlling terminal), so ssh fails at once as it does under BatchMode, while
// the person's own GIT_SSH_COMMAND / core.sshCommand stay in charge (src/git/git.ts).
//
// The ssh here is a script in GIT_SSH_COMMAND that records its arguments, its environment and
// whether it could open a terminal, and then does what ssh does for a host it does not know:
// with a terminal it asks on /dev/tty and waits for the answer; without one it fails with
// "Host key verification failed." abcd itself runs under `script`, i.e. WITH a terminal, as
// when a person starts it: only abcd's own doing keeps ssh from reaching it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession, type Session } from '../harness/session.js';

// How long the fake ssh waits on its prompt: a run that reached the prompt takes this long.
const PROMPT_WAIT_S = 20;

const FAKE_SSH = `#!/bin/bash
log="$FAKE_SSH_LOG"
{
  echo "args: $*"
  echo "GIT_TERMINAL_PROMPT=\${GIT_TERMINAL_PROMPT-unset}"
  echo "GIT_PROTOCOL=\${GIT_PROTOCOL-unset}"
} >> "$log"
if { exec 3<>/dev/tty; } 2>/dev/null; then
  echo "tty: yes" >> "$log"
  printf "The authenticity of host 'unreachable.invalid' can't be established.\\nAre you sure you want to continue connecting (yes/no/[fingerprint])? " >&3
  read -r -t ${PROMPT_WAIT_S} answer <&3
  echo "answered: \${answer:-nothing}" >> "$log"
else
  echo "tty: no" >> "$log"
fi
echo "Host key verification failed." >&2
exit 255
`;

describe('ssh stays non-interactive', () => {
  let s: Session;
  let log: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    s = await makeSession((await makeRemote()).url, 'sol');
    const dir = await tempDir('fake-ssh');
    const ssh = join(dir, 'ssh');
    await writeFile(ssh, FAKE_SSH, { mode: 0o755 });
    log = join(dir, 'log');
    await s.git(['remote', 'set-url', 'origin', 'ssh://git@unreachable.invalid:2222/project.git']);
    env = { ...s.env, GIT_SSH_COMMAND: ssh, FAKE_SSH_LOG: log };
  });
  afterAll(cleanupTemp);

  /** Runs a command with a controlling terminal (util-linux script allocates a pty). */
  const withTerminal = (command: string, input = '') =>
    execa('script', ['-qec', command, '/dev/null'], { cwd: s.dir, env, extendEnv: false, reject: false, input, timeout: 90_000 });

  it('control: git run straight from a terminal reaches the prompt (the fake ssh can tell)', async () => {
    await writeFile(log, '');
    const r = await withTerminal('git ls-remote origin', 'no\n');
    expect(r.exitCode).not.toBe(0);
    const said = await readFile(log, 'utf8');
    expect(said).toContain('tty: yes');
    expect(said).toContain('answered: no');
  });

  it.each([['reserve', 'over-ssh'], ['status']])(
    'abcd %s from a terminal: ssh finds no terminal, nothing prompts, exit 8',
    async (...args) => {
      await writeFile(log, '');
      const r = await withTerminal(`${process.execPath} ${ABCD_BIN} ${args.join(' ')} --json`);
      const out = String(r.stdout);
      const answer = JSON.parse(out.trim().split(/\r?\n/).at(-1)!);
      expect(r.exitCode, out).toBe(8);
      expect(answer.refusal).toMatchObject({ code: 'remote-unavailable', data: { outcome: 'unchanged' } });
      expect(out).not.toMatch(/continue connecting|passphrase|password/i);
      const said = await readFile(log, 'utf8');
      // ssh was run (with git's own arguments: the host and the command) and found no terminal.
      expect(said).toMatch(/^args: .*git@unreachable\.invalid.*git-(upload|receive)-pack/m);
      expect(said).toContain('GIT_TERMINAL_PROMPT=0');
      expect(said).toContain('tty: no');
      expect(said).not.toContain('tty: yes');
      expect(said).not.toContain('answered');
    },
  );
});
