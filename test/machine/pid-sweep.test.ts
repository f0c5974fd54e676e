// The sweep by environment marker: without a pid namespace, what a run started and that left its
// process group is found in /proc by the marker in its environment and killed; every other
// process (this machine's, read through the same /proc) is left running.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepByEnvironment } from '../../src/machine/sandbox/pid-namespace.js';

const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function sleeper(env: Record<string, string>): Promise<ChildProcess> {
  const c = spawn('sleep', ['600'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: 'ignore', detached: true });
  started.push(c);
  return new Promise((resolve, reject) => c.once('spawn', () => resolve(c)).once('error', reject));
}

function ended(c: ChildProcess): Promise<NodeJS.Signals | null> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve(c.signalCode);
  return new Promise((resolve) => c.once('exit', (_code, signal) => resolve(signal)));
}

describe.skipIf(process.platform !== 'linux')('the sweep by environment marker', () => {
  it('kills the marked processes only', async () => {
    const marker = `ABCD_SWEEP_TEST=${randomBytes(6).toString('hex')}`;
    const [name, value] = marker.split('=') as [string, string];
    const marked = await sleeper({ [name]: value });
    const other = await sleeper({ [name]: `${value}-other` });
    const killed = await sweepByEnvironment(marker);
    expect(killed).toEqual([marked.pid]);
    expect(await ended(marked)).toBe('SIGKILL');
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
  });
});
