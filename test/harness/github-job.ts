// Runs a generated GitHub Actions job's `run:` steps here, in order, the way the runner would
// (bash -eo pipefail, the job's env, GITHUB_ENV carried to later steps, each step's
// GITHUB_OUTPUT read back, no step after a failed one), and says what it did not run for real
// and why. This machine is not a GitHub runner: it has no root to install packages or set a
// sysctl with. Those commands are stood in for, never silently dropped: each is in the report.
import { appendFile, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

export interface JobStep {
  name: string;
  env: Record<string, string>;
  run: string;
}

export interface StepReport {
  name: string;
  /** False: the step was not run at all (`why` says why). */
  ran: boolean;
  why?: string;
  exit?: number;
  out: string;
  /** Commands the step ran through `sudo`, recorded instead of run (see STUBBED_COMMANDS). */
  stubbed: string[];
  /** What the step wrote to GITHUB_OUTPUT (`steps.<id>.outputs`). */
  outputs: Record<string, string>;
}

/** Why a step after a failed one did not run. */
export const AFTER_FAILURE = 'an earlier step failed, and the runner runs no later step';

/** Commands recorded instead of run, each with the reason. */
export const STUBBED_COMMANDS: Readonly<Record<string, string>> = {
  sudo: 'needs root, which a GitHub runner has and this test does not: the command is recorded, not run',
};

export interface JobOptions {
  cwd: string;
  /** The job's environment (PATH, HOME, RUNNER_TEMP, GITHUB_ENV ...). */
  env: Record<string, string>;
  /** The values of the variables and secrets steps map into their env. */
  secrets: Record<string, string>;
  /** A folder for the stand-ins' files. */
  scratch: string;
  /** Called before a step runs (a test's chance to move the job's clock). */
  before?: (step: JobStep) => Promise<void>;
  timeoutMs?: number;
}

export async function runGithubJob(steps: readonly JobStep[], o: JobOptions): Promise<StepReport[]> {
  const bin = join(o.scratch, 'stand-ins');
  const log = join(o.scratch, 'stubbed.log');
  await mkdir(bin, { recursive: true });
  await writeFile(log, '');
  for (const name of Object.keys(STUBBED_COMMANDS)) {
    const path = join(bin, name);
    await writeFile(path, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n`);
    await chmod(path, 0o755);
  }
  const reports: StepReport[] = [];
  for (const [i, step] of steps.entries()) {
    if (reports.some((r) => r.ran && r.exit !== 0)) {
      reports.push({ name: step.name, ran: false, why: AFTER_FAILURE, out: '', stubbed: [], outputs: {} });
      continue;
    }
    await o.before?.(step);
    const output = join(o.scratch, `output-${i}`);
    await writeFile(output, '');
    const stepEnv = Object.fromEntries(Object.keys(step.env).map((k) => [k, o.secrets[k] ?? '']));
    const r = await execa('bash', ['-eo', 'pipefail', '-c', step.run], {
      cwd: o.cwd,
      env: { ...o.env, ...(await exportedEnv(o.env.GITHUB_ENV!)), ...stepEnv, GITHUB_OUTPUT: output, PATH: `${bin}:${o.env.PATH}` },
      extendEnv: false,
      reject: false,
      timeout: o.timeoutMs ?? 90_000,
    });
    const stubbed = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    await writeFile(log, '');
    const outputs = await exportedEnv(output);
    reports.push({ name: step.name, ran: true, exit: r.exitCode ?? -1, out: r.stdout + r.stderr, stubbed, outputs });
  }
  return reports;
}

/** What earlier steps wrote to GITHUB_ENV (or a step to GITHUB_OUTPUT), as the runner reads it. */
export async function exportedEnv(githubEnv: string): Promise<Record<string, string>> {
  return Object.fromEntries(
    (await readFile(githubEnv, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Appends a variable to GITHUB_ENV, as a step's `echo NAME=value >> "$GITHUB_ENV"` would. */
export async function exportVariable(githubEnv: string, name: string, value: string): Promise<void> {
  await appendFile(githubEnv, `${name}=${value}\n`);
}
