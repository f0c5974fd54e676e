// The folders a sandbox hides, as this environment names them: the person's home and every
// place their secrets or abcd's own state can live. One list for agents and checks alike.
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unlessMissing } from '../../core/best-effort.js';
import type { Env } from '../../core/deps.js';

export interface PlacesOf {
  home: string;
  configDir: string;
  machineDir: string;
  tmpDir: string;
  /** The config folders of the runtimes' CLIs, as their variables name them (a team's config and tokens). */
  toolHomes?: readonly string[];
}

/**
 * HOME, the config folders (XDG, gh's, abcd's, and each runtime CLI's own, such as a team's config
 * with MCP servers' env and provider tokens), ~/.ssh, the machine folder (gate, budget), the
 * system's temporary folder when it is not /tmp (credential sockets live there), and the user's
 * runtime folder with its agent sockets (ssh-agent, gpg-agent, keyrings), which a read-only
 * system would leave reachable: connecting to a socket needs no write.
 */
export function secretPlaces(env: Env, o: PlacesOf): string[] {
  const sock = env.SSH_AUTH_SOCK?.startsWith('/') ? dirname(env.SSH_AUTH_SOCK) : undefined;
  const places = [
    o.home,
    join(o.home, '.ssh'),
    env.XDG_CONFIG_HOME,
    env.GH_CONFIG_DIR,
    env.ABCD_CONFIG_DIR,
    ...(o.toolHomes ?? []).map(realFolder),
    o.configDir,
    env.ABCD_MACHINE_DIR,
    o.machineDir,
    o.tmpDir,
    env.XDG_RUNTIME_DIR,
    '/run/user',
    sock,
  ];
  return [...new Set(places.filter((p): p is string => typeof p === 'string' && p.startsWith('/') && p !== '/'))];
}

/** Whether `p` is `place` or inside it. */
export function isInside(p: string, place: string): boolean {
  const base = place.endsWith('/') ? place : `${place}/`;
  return p === place || p.startsWith(base);
}

/**
 * The folder `p` names, through symlinks (bubblewrap cannot mount over a symlink); undefined when
 * there is none. Any other failure (a loop of links, a folder this user cannot search) is thrown
 * on: a config folder that could not be resolved is never quietly left visible to the sandbox.
 */
function realFolder(p: string | undefined): string | undefined {
  if (!p?.startsWith('/')) return undefined;
  try {
    return realpathSync(p);
  } catch (e) {
    return unlessMissing(undefined)(e);
  }
}
