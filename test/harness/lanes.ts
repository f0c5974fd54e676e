// Lanes' test set-up: a bare remote whose main holds items, sessions cloned from it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { configOptions, git, isolatedEnv, tempDir } from './git-env.js';
import { makeRemote, type BareRemote } from './remote.js';
import { makeSession, type AbcdRun, type Json, type Session } from './session.js';

export interface ItemSpec {
  slug: string;
  dependsOn?: string[];
  status?: 'ready' | 'done';
}

/** A remote whose main has `.abcd/items/<slug>.md` for each item (and an optional config). */
export async function remoteWithItems(items: readonly ItemSpec[], config?: unknown): Promise<BareRemote> {
  const remote = await makeRemote();
  const root = await tempDir('items');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', ...configOptions([['commit.gpgsign', 'false']]), remote.url, seed], env);
  await mkdir(join(seed, '.abcd/items'), { recursive: true });
  for (const i of items) {
    const deps = i.dependsOn?.length ? `depends_on: [${i.dependsOn.join(', ')}]\n` : '';
    await writeFile(
      join(seed, `.abcd/items/${i.slug}.md`),
      `---\ntitle: ${i.slug}\nstatus: ${i.status ?? 'ready'}\n${deps}---\nWork on ${i.slug}.\n`,
    );
  }
  if (config) await writeFile(join(seed, '.abcd/config.json'), JSON.stringify(config));
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'items'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  return remote;
}

/** A session whose machine dir (budget, gate) is its own unless given. */
export async function laneSession(remote: BareRemote, name: string, env: Record<string, string> = {}): Promise<Session> {
  return makeSession(remote.url, name, { env: { ABCD_GATE_SLOTS: '4', ...env } });
}

/** An agent that writes one file named after its item and commits it. */
export const COMMITTING_AGENT =
  'f="out-$(printf %s "$ABCD_ITEM" | tr : -).txt"; echo "built $ABCD_ITEM" > "$f"; git add "$f" && git commit -qm "agent: $ABCD_ITEM"';

/** Processes whose command line contains `marker` (the agent's, when the marker is in its command). */
export async function processesWith(marker: string): Promise<number[]> {
  const r = await execa('pgrep', ['-f', marker], { reject: false });
  return String(r.stdout)
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((p) => p !== process.pid);
}

/** SIGKILL to every process whose command line contains `marker`; one that ended since it was listed is passed over. */
export async function killProcessesWith(marker: string): Promise<void> {
  for (const pid of await processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}

/** The remote's main: the item file's status, read with git. */
export async function itemStatus(remote: BareRemote, slug: string): Promise<string | undefined> {
  const r = await execa('git', ['-C', remote.dir, 'show', `main:.abcd/items/${slug}.md`], { reject: false });
  return /^status:\s*(\S+)/m.exec(String(r.stdout))?.[1];
}

/** main's first-parent subjects, oldest first. */
export async function mainSubjects(remote: BareRemote): Promise<string[]> {
  const r = await execa('git', ['-C', remote.dir, 'log', '--reverse', '--format=%s', 'main']);
  return String(r.stdout).split('\n');
}

/**
 * The work's own commit subjects on main, oldest first: each commit's subject, and for a squash
 * landing (a commit with an Abcd-Item trailer) the subjects of the work it carries, as its body lists them.
 */
export async function mainWorkSubjects(remote: BareRemote): Promise<string[]> {
  const r = await execa('git', ['-C', remote.dir, 'log', '--reverse', '--format=%x01%B', 'main']);
  return String(r.stdout)
    .split('\x01')
    .filter(Boolean)
    .flatMap((m) => {
      const lines = m.trim().split('\n');
      if (!lines.some((l) => l.startsWith('Abcd-Item: '))) return [lines[0]!];
      return lines.filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
    });
}

/** The agent's own processes (the sandbox and its shell), not the abcd process whose argv names it. */
export async function agentProcesses(marker: string): Promise<number[]> {
  const { readFile } = await import('node:fs/promises');
  const out: number[] = [];
  for (const pid of await processesWith(marker)) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd && !cmd.includes('bin/abcd')) out.push(pid);
  }
  return out;
}

/**
 * A build or drain answer's run: the answer itself when it landed, else the run its refusal
 * carries (a run that lands nothing answers not-landed, deadline or interrupted, the run in data.result).
 */
export function laneRun(r: AbcdRun): Json {
  return r.json?.ok ? r.json : r.json?.refusal?.data?.result;
}
