// What a lane run warns of as it starts: main's config loosening the sandbox with nothing to vouch
// for it, requesters named where they give no authority, an agent with the host's network.
import type { LanesConfig, RepoConfig } from '../../repo/config.js';
import { looseningsOf } from '../../repo/config-loosening.js';
import type { ConfigTrust } from '../../settings/config-trust.js';

/** Said by a lane whose person keeps no allowed-signers list while main's config loosens the sandbox: nothing vouches for it. */
export function unprotectedLoosening(trust: ConfigTrust, config: RepoConfig): string | undefined {
  const keys = trust.protected ? [] : looseningsOf({}, config, { checksJudged: false });
  if (!keys.length) return undefined;
  return (
    `.abcd/config.json loosens the sandbox (${keys.join(', ')}) and is unprotected: without an allowed-signers list nobody can tell ` +
    "the person's change from anyone's (docs/settings.md says how to keep one)."
  );
}

/**
 * lanes.requesters in .abcd/config.json named who may request work, but anyone who can land
 * can change that file, and it matched self-stated session ids: it gives no authority now.
 */
export function ignoredRequesters(cfg: { requesters?: string[] | undefined }): string | undefined {
  if (!cfg.requesters?.length) return undefined;
  return (
    'lanes.requesters in .abcd/config.json is ignored: anyone who can land can change it. Requesters are named in the ' +
    "person's signed settings now (abcd settings requesters a@example.com,b@example.com)."
  );
}

/** Unsandboxed, the agent has the host's network and files: no sandbox or egress proxy stands between, and the lane says so. */
export function unfilteredNetwork(sandbox: 'bwrap' | 'none', cfg: LanesConfig): string | undefined {
  if (sandbox !== 'none') return undefined;
  return `The agent runs unsandboxed: it has this computer's network and files as you do, with no sandbox and no egress proxy${cfg.network?.allow ? ' (lanes.network.allow does not apply)' : ''}.`;
}

export function warningOf(parts: (string | undefined)[]): { warning: string } | undefined {
  const text = parts.filter(Boolean).join(' ');
  return text ? { warning: text } : undefined;
}
