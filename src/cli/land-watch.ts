// What a person's own land shows of its checks as they run: each connection their sandbox asked
// the egress proxy for, allowed or refused, one line on stderr as it happens (where a lane's
// phase lines and the gate's wait line go: a person's land has no run log for `abcd logs` to
// read), which relay carries that network out (socat, or abcd's node), and a warning, once, before checks run without the sandbox. The answer counts them.
import type { Deps } from '../core/deps.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { CheckWatch } from '../land/checks/checks.js';
import { networkLine, NetworkTally, relayLine, type NetworkCounts } from '../machine/sandbox/network-log.js';

export interface PersonLandWatch {
  watch: CheckWatch;
  /** The connections of every sandboxed check this land ran. */
  counts(): NetworkCounts;
}

export function personLandWatch(deps: Deps): PersonLandWatch {
  const tally = new NetworkTally();
  const said = new Set<string>();
  // The target is what the check asked for: a line of the terminal's, never its control codes.
  const say = (line: string) => deps.out.stderr(`abcd: ${sanitizeLine(line)}\n`);
  return {
    watch: {
      network(e) {
        tally.add(e);
        say(
          networkLine(e)
            .replace(/^\[abcd\] /, '')
            .trimEnd(),
        );
      },
      // Which relay carries the checks' network out: said once, unless it changes.
      relay(kind) {
        const line = relayLine(kind)
          .replace(/^\[abcd\] /, '')
          .trimEnd();
        if (said.has(line)) return;
        said.add(line);
        say(line);
      },
      warning(text) {
        if (said.has(text)) return;
        said.add(text);
        say(`warning: ${text}`);
      },
    },
    counts: () => tally.counts(),
  };
}

/** The counts as the land's text says them, or nothing when no connection was asked for. */
export function networkText(c: NetworkCounts): string {
  if (c.allowed + c.refused === 0) return '';
  return `; network: ${c.allowed} allowed, ${c.refused} refused (${c.hosts.join(', ')})`;
}
