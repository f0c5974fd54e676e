// The shell the generated CI jobs run to get abcd and the agent's CLI, and to start the lane,
// shared by the GitHub and the GitLab file. The job follows main's runtime (lanes.runtime in
// the checked-out .abcd/config.json) when it runs, not the one init saw: switching runtimes
// is a change to main, never a new CI file.
import { RUNTIMES } from '../lanes/runtimes/index.js';
import type { RuntimeName } from '../repo/config.js';
import { PACKAGE_VARIABLE } from './package-spec.js';

/** The model keys the lane step gets from the CI's secrets, one per built-in runtime. */
export const MODEL_KEY_SECRETS: readonly string[] = Object.values(RUNTIMES).flatMap((r) => (r.install ? [r.install.keyVariable] : []));

/** The runtimes whose CLI the job installs. */
export const INSTALLED_RUNTIMES: readonly RuntimeName[] = Object.values(RUNTIMES).flatMap((r) => (r.install ? [r.name] : []));

/** The CI variable that installs another version of a runtime's CLI than the one abcd is tested with. */
export function cliPackageVariable(runtime: RuntimeName): string {
  return `LANE_${runtime.toUpperCase()}_PACKAGE`;
}

/** How the job gets abcd: the vendored tarball in the repository, or what ABCD_PACKAGE names. */
export interface AbcdSource {
  /** The tarball's path in the repository (`.abcd/vendor/abcd-<version>.tgz`), with --vendor. */
  vendored?: string;
  /** The shell variable holding ABCD_PACKAGE's value in the job. */
  variable: string;
  /** The package's registry name, for the message when nothing says what to install. */
  name: string;
}

/** Installs abcd: the variable's package when set, else the vendored tarball, else says how to set the variable. */
export function abcdInstallLines(s: AbcdSource): string[] {
  if (s.vendored) {
    // A file in the checkout: no network, no registry, no build.
    return [`npm install --global --offline --no-audit --no-fund "\${${s.variable}:-./${s.vendored}}"`, 'abcd --version'];
  }
  return [
    `if [ -z "$${s.variable}" ]; then`,
    `  echo "abcd: nothing says which abcd to install: ${s.name} is not on the npm registry yet. Set the CI variable ${PACKAGE_VARIABLE}" >&2`,
    `  echo "  to a tarball's URL or your own registry's name@version (npm pack in a clone of abcd makes the tarball)," >&2`,
    '  echo "  or commit abcd\'s own tarball with: abcd init --ci <github|gitlab> --vendor --force" >&2',
    '  exit 1',
    'fi',
    `npm install --global --no-audit --no-fund "$${s.variable}"`,
    'abcd --version',
  ];
}

/**
 * Reads lanes.runtime from main's config into LANE_RUNTIME and installs that runtime's CLI at
 * the version abcd is tested with, unless its CI variable names another package spec.
 */
export function cliInstallLines(exportLine: (name: string, value: string) => string): string[] {
  const read =
    'runtime=$(node -e \'let c = {}; try { c = JSON.parse(require("fs").readFileSync(".abcd/config.json", "utf8")); } catch {} ' +
    'process.stdout.write(String((c.lanes && c.lanes.runtime) || "command"))\')';
  const lines = [read, exportLine('LANE_RUNTIME', '$runtime'), 'case "$runtime" in'];
  for (const runtime of INSTALLED_RUNTIMES) {
    const i = RUNTIMES[runtime].install!;
    const variable = cliPackageVariable(runtime);
    lines.push(
      `  ${runtime})`,
      `    npm install --global --no-audit --no-fund "\${${variable}:-${i.package}@${i.version}}"`,
      `    ${runtime} --version ;;`,
    );
  }
  lines.push(
    '  command) echo "the command runtime: LANE_AGENT is the agent command" ;;',
    '  *) echo "abcd: lanes.runtime is \\"$runtime\\"" >&2; exit 2 ;;',
    'esac',
  );
  return lines;
}

/**
 * Starts the lane: a build of the item, or a drain. A built-in runtime runs its own program
 * (no --agent); the command runtime runs LANE_AGENT when it is set, else lanes.agent of main.
 */
export function laneLines(o: { item: string; idle: string; buildIdle: string }): string[] {
  return [
    // A runner's own pool starts empty; the team's, on the remote, is what bounds every job.
    "# Spend: every cycle reserves from the team budget on the remote when the person set one (abcd budget set <tokens> --team); a fresh runner's own pool has no limit.",
    'set --',
    'if [ "$LANE_RUNTIME" = command ] && [ -n "$LANE_AGENT" ]; then set -- --agent "$LANE_AGENT"; fi',
    `if [ -n "${o.item}" ]; then`,
    `  abcd build "${o.item}" "$@" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE" --idle ${o.buildIdle}`,
    'else',
    `  abcd drain "$@" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE" --idle ${o.idle}`,
    'fi',
  ];
}
