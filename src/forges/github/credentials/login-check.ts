// The login check, so that no unattended lane acts under the person's forge login: before an
// unattended lane claims anything on a forge, look for
// the person's login in every place that can be read without a secret, and refuse naming
// them all. It never asks a git credential helper (the helper would answer with the token
// itself, and a keychain prompt would hang an unattended start), so it cannot see a login
// kept only in a keychain; it says so instead of calling the machine clean.
import type { Env } from '../../../core/deps.js';
import { UnsafeEnvironment } from '../../../core/refusals.js';
import { resolveForgeHost, type ForgeHostInput } from '../../forge-host.js';
import { runGhAuthStatus, type RunGhStatus } from './gh-status.js';
import * as places from './login-places.js';

export type LoginKind = 'gh-auth-status' | 'token-variable' | 'gh-hosts-file' | 'git-credentials-file';

/** One place the person's login was found. Never carries a value. */
export interface LoginFinding {
  /** The place in words, fit to print. */
  place: string;
  kind: LoginKind;
  path?: string;
  variable?: string;
}

/** A signal that gave neither yes nor no (gh missing or stalled, a file abcd may not read). */
export interface UnknownSignal {
  kind: LoginKind;
  reason: string;
  path?: string;
}

export interface LoginCheck {
  host: string;
  findings: LoginFinding[];
  unknown: UnknownSignal[];
}

export interface LoginCheckInput {
  host: string;
  env: Env;
  /** The home directory the lane runs with; the store files are read below it. */
  home: string;
  runGh?: RunGhStatus;
  readFile?: places.ReadText;
  timeoutMs?: number;
}

// Offline with no DNS, gh 2.23 answers in about 40 ms; on a network that drops packets it
// waits for its HTTP timeout. Five seconds bounds an unattended start (every wait ends by a stated time).
export const GH_STATUS_TIMEOUT_MS = 5_000;

export const OUT_OF_SIGHT = "A login kept only in a keychain or a git credential helper is out of this check's sight";

/** Reads every signal and reports each place a login for the host was found. */
export async function checkLogin(input: LoginCheckInput): Promise<LoginCheck> {
  const { host, env, home } = input;
  const readText = input.readFile ?? places.readTextIfPresent;
  const findings: LoginFinding[] = [];
  const unknown: UnknownSignal[] = [];

  const runGh = input.runGh ?? runGhAuthStatus;
  const gh = await runGh({ host, env, timeoutMs: input.timeoutMs ?? GH_STATUS_TIMEOUT_MS });
  if (gh.state === 'logged-in') {
    findings.push({ place: `gh auth status --hostname ${host} (exit 0: gh is logged in)`, kind: 'gh-auth-status' });
  } else if (gh.state === 'unknown') {
    unknown.push({ kind: 'gh-auth-status', reason: gh.reason });
  }

  for (const variable of places.setTokenVariables(env)) {
    findings.push({ place: `environment variable ${variable}`, kind: 'token-variable', variable });
  }

  for (const file of places.storeFiles(env, home)) {
    let text: string | undefined;
    try {
      text = await readText(file.path);
    } catch (e) {
      // Only the error code is kept: an unreadable store file may still hold a login.
      const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
      unknown.push({ kind: file.kind, path: file.path, reason: `cannot read ${file.path} (${code})` });
      continue;
    }
    if (text !== undefined && file.namesHost(text, host)) {
      findings.push({ place: `${file.label} ${file.path}`, kind: file.kind, path: file.path });
    }
  }
  return { host, findings, unknown };
}

/** The refusal for a check that found a login: every place at once, and what it cannot see. */
export function loginRefusal(check: LoginCheck): UnsafeEnvironment {
  const list = check.findings.map((f) => `  - ${f.place}`).join('\n');
  const n = check.findings.length;
  return new UnsafeEnvironment(
    `the person's forge login for ${check.host} is within reach (${n} place${n === 1 ? '' : 's'}):\n${list}\n` +
      'An unattended lane must not run where that login can be reached: start it in a container, a cloud ' +
      'session or under a separate user account, or run it with --attended if you start and watch it. ' +
      `abcd removes nothing. ${OUT_OF_SIGHT}.`,
    {
      reason: 'login-in-reach',
      host: check.host,
      findings: check.findings.map(({ place, kind, path, variable }) => ({ place, kind, path, variable })),
      unknown: check.unknown,
      outOfSight: 'keychain or git credential helper',
    },
  );
}

export interface LoginGateInput extends Omit<LoginCheckInput, 'host'>, ForgeHostInput {
  /** A person starts and watches this lane: it counts as their own session, and the login check does not apply. */
  attended: boolean;
}

export type LoginGate =
  | { status: 'attended' }
  | { status: 'not-applicable'; reason: string; remoteHost?: string }
  | { status: 'clear'; host: string; unknown: UnknownSignal[] };

/**
 * THE gate every unattended entry point (build, drain) passes before it claims anything.
 * Throws UnsafeEnvironment (exit 7) naming every place a login was found; otherwise says why
 * it let the lane through.
 */
export async function assertNoLogin(input: LoginGateInput): Promise<LoginGate> {
  if (input.attended) return { status: 'attended' };
  const forge = resolveForgeHost(input);
  if (!forge.applies) return { status: 'not-applicable', reason: forge.reason, remoteHost: forge.remoteHost };
  const check = await checkLogin({ ...input, host: forge.host });
  if (check.findings.length > 0) throw loginRefusal(check);
  return { status: 'clear', host: check.host, unknown: check.unknown };
}

/** One line per gate outcome, for the CLI and the lanes' logs. */
export function describeGate(gate: LoginGate): string {
  if (gate.status === 'attended') return 'login check skipped: the lane is attended (a person started it and watches it)';
  if (gate.status === 'not-applicable') {
    return `the login check does not apply: ${gate.reason}; such a remote takes no App token either`;
  }
  const notes = gate.unknown.map((u) => `\n  unknown: ${u.reason}`).join('');
  return `no login found for ${gate.host} (a keychain-only login is out of sight)${notes}`;
}
