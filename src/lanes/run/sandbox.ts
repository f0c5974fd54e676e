// The sandbox a lane runs its agent in (the bubblewrap part is src/machine/sandbox/, which land's
// checks use too): the cycle's folder writable, the lane repository's objects read-only, the
// person's home, config and the clone hidden.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Env } from '../../core/deps.js';
import { AgentNotFound, UnsafeEnvironment, UsageError } from '../../core/refusals.js';
import { probeBwrap, type Bind, type Sandbox, type SandboxMode, type SandboxPlan } from '../../machine/sandbox/bwrap.js';
import { isInside } from '../../machine/sandbox/places.js';
import { programView } from '../../machine/sandbox/program.js';
import type { SandboxNetwork } from '../../machine/sandbox/sandbox-network.js';
import { runtimeSpec } from '../runtimes/index.js';
import type { RuntimeName } from '../runtimes/runtime.js';

export type { Sandbox, SandboxMode, SandboxPlan } from '../../machine/sandbox/bwrap.js';

/**
 * The sandbox a lane uses. `auto` takes bubblewrap when it works; without it an unattended
 * lane refuses (exit 7) naming the fix, and an attended one runs unsandboxed.
 */
export async function chooseSandbox(
  mode: SandboxMode,
  o: { env: Env; attended: boolean },
): Promise<{ sandbox: Sandbox; warning?: string }> {
  if (mode === 'none') return { sandbox: 'none' };
  const why = await probeBwrap(o.env);
  if (!why) return { sandbox: 'bwrap' };
  if (mode === 'auto' && o.attended) return { sandbox: 'none', warning: `${why}: the attended lane runs its agent unsandboxed` };
  throw new UnsafeEnvironment(
    `${why}, and a lane does not run an agent unsandboxed by default. Install bubblewrap ` +
      '(Debian/Ubuntu: apt-get install bubblewrap socat; bubblewrap needs unprivileged user namespaces, ' +
      "socat relays the agent's network out), " +
      'or pass --sandbox none to run the agent as yourself knowingly.',
    { sandbox: mode, reason: why },
  );
}

/** Every folder a lane's agent must not see: the person's secret places, the clone and where abcd was started. */
export function laneHidden(ctx: { hide: readonly string[]; repo: { commonDir: string; deps: { cwd: string } } }): string[] {
  return [...ctx.hide, ctx.repo.commonDir, dirname(ctx.repo.commonDir), ctx.repo.deps.cwd];
}

/** One cycle's plan: its folder writable, the objects it borrows read-only, the agent's program read-only, its network's relay. */
export function cyclePlan(o: {
  cycleDir: string;
  objectsDir: string;
  hide: readonly string[];
  program?: Pick<SandboxPlan, 'binds' | 'symlinks'>;
  network?: Pick<SandboxNetwork, 'binds' | 'prefix'>;
}): SandboxPlan {
  const binds: Bind[] = [{ path: o.objectsDir }, { path: o.cycleDir, writable: true }, ...(o.program?.binds ?? [])];
  const plan: SandboxPlan = { hide: o.hide, binds, symlinks: o.program?.symlinks ?? [], chdir: join(o.cycleDir, 'wt') };
  const net = o.network;
  if (!net) return plan;
  // Read as each agent process starts: a forward the runtime adds (its gateway) is in it.
  return {
    ...plan,
    get binds() {
      return [...binds, ...net.binds];
    },
    get inside() {
      return net.prefix;
    },
  };
}

/**
 * What the agent's sandbox shows of its program: `lanes.bind` (read-only) and the install
 * folders of the command's first word and its interpreter. Refuses (exit 7, nothing claimed)
 * when the program cannot be shown, saying that the sandbox hides HOME and /tmp and the ways out.
 */
export async function agentProgramView(o: {
  command: string;
  path: string;
  cwd: string;
  home: string;
  /** Every folder the agent's sandbox hides. */
  hidden: readonly string[];
  /** Those never shown, even read-only: the config folders, ~/.ssh, the clone. */
  secret: readonly string[];
  bind: readonly string[];
  runtime: RuntimeName;
}): Promise<Pick<SandboxPlan, 'binds' | 'symlinks'>> {
  const bound = o.bind.map((b) => (b.startsWith('~/') ? join(o.home, b.slice(2)) : b));
  for (const b of bound) {
    if (!existsSync(b))
      throw new UsageError(`lanes.bind names ${b}, which does not exist on this computer; fix .abcd/config.json on main.`, 'path', {
        path: b,
      });
    const exposes = [o.home, ...o.secret].find((s) => isInside(s, b) || (s !== o.home && isInside(b, s)));
    if (exposes) {
      throw new UsageError(
        `lanes.bind names ${b}, which is or holds ${exposes}: a lane never shows the person's home, config or keys to its agent. ` +
          "Bind the program's own folder instead.",
        'path',
        { path: b },
      );
    }
  }
  const view = await programView(o.command, {
    path: o.path,
    cwd: o.cwd,
    places: { hidden: [...o.hidden, '/tmp'], secret: o.secret, bound },
  });
  if (view.hidden?.why === 'not-found') throw agentNotFound(o.runtime, view.hidden.word, o.path);
  if (view.hidden) {
    const { path } = view.hidden;
    throw new UnsafeEnvironment(
      `the agent's command cannot be found inside the sandbox: its program ${path} is in ${dirname(path)}. The sandbox hides HOME and /tmp (and never shows a folder ` +
        "that holds HOME or the person's config); nothing was claimed. Install the agent outside them (e.g. under /usr/local or /opt), " +
        `or show its folder read-only with "lanes": {"bind": ["${dirname(path)}"]} in .abcd/config.json ` +
        '(and give its full path in the command if it is not on PATH).',
      { reason: 'agent-hidden-by-sandbox', path, fix: 'lanes.bind' },
    );
  }
  return { binds: [...bound.map((b) => ({ path: b })), ...view.binds], symlinks: view.symlinks };
}

/**
 * Unsandboxed, the agent's program must still be there: a missing CLI or a mistyped quoted path
 * is named before anything is claimed, rather than as the shell's "not found" after a claim.
 */
export async function requireAgentProgram(o: { command: string; path: string; cwd: string; runtime: RuntimeName }): Promise<void> {
  const view = await programView(o.command, { path: o.path, cwd: o.cwd, places: { hidden: [], secret: [], bound: [] } });
  if (view.hidden?.why === 'not-found') throw agentNotFound(o.runtime, view.hidden.word, o.path);
}

/** The refusal for a program that is not there: how to install a built-in runtime's CLI, or which key names it. */
function agentNotFound(runtime: RuntimeName, word: string, path: string): AgentNotFound {
  const where = word.includes('/') ? `"${word}" is not an executable file` : `"${word}" is not on the lane's PATH (${path})`;
  const { install } = runtimeSpec(runtime);
  if (install) {
    return new AgentNotFound(
      `${install.name}'s CLI cannot be found: ${where}; nothing was claimed. Install it (${install.command}), ` +
        `or set ${install.programKey} in .abcd/config.json on main to its full path.`,
      { word, runtime, fix: install.programKey, install: install.command },
    );
  }
  return new AgentNotFound(
    `the agent command's program cannot be found: ${where}; nothing was claimed. Install it, or give its full path ` +
      'in --agent (or lanes.agent); a path with spaces goes in quotes, as the shell reads it.',
    { word, runtime, fix: '--agent' },
  );
}
