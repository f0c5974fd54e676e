// The GitLab CI configuration `abcd init --ci gitlab` writes, as plain text from a template.
import {
  appConfigLines,
  CI_BUILD_IDLE,
  CI_IDLE,
  CI_NODE_MAJOR,
  DEFAULT_TIMEOUT_MINUTES,
  GENERATED_MARKER,
  type LaneCiOptions,
} from './github-workflow.js';
import { abcdInstallLines, cliInstallLines, laneLines } from './ci-lane-lines.js';
import { PACKAGE_VARIABLE } from './package-spec.js';

export const GITLAB_CI_PATH = '.gitlab-ci.yml';
/** Where the lanes go when the project already has a .gitlab-ci.yml of its own. */
export const GITLAB_INCLUDE_PATH = '.abcd/ci/gitlab-lanes.yml';

export function renderGitlabCi(o: LaneCiOptions): string {
  const minutes = o.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES;
  const block = (lines: string[]) => lines.join('\n      ');
  const install = block(abcdInstallLines({ ...o.abcd, variable: PACKAGE_VARIABLE }));
  const cli = block(cliInstallLines((name, value) => `export ${name}="${value}"`));
  // GitLab's resource group names take no ':' (an item key's separator): the pipeline names an
  // issue github/issue/123, and the script turns the slashes back into colons for abcd.
  const lane = block([
    'case "$LANE_ITEM" in *:*)',
    '  echo "abcd: write LANE_ITEM with / where the key has a colon (github/issue/123): GitLab resource group names take none" >&2',
    '  exit 2 ;;',
    'esac',
    'item=$(printf \'%s\' "$LANE_ITEM" | tr / :)',
    ...laneLines({ item: '$item', idle: CI_IDLE, buildIdle: CI_BUILD_IDLE }),
  ]);
  // One script entry: the key is written and its variable dropped before abcd starts. Only a
  // GitHub remote needs the App, so without LANE_APP_ID nothing is written.
  const appConfig = [
    'if [ -n "$LANE_APP_ID" ]; then',
    ...[...appConfigLines('$(mktemp -d)'), 'export ABCD_CONFIG_DIR="$dir"'].map((l) => `  ${l}`),
    'fi',
    'unset LANE_APP_PRIVATE_KEY',
  ].join('\n      ');
  return `${GENERATED_MARKER} --ci gitlab\`; edit freely, \`--force\` rewrites it.
#
# Runs abcd's unattended lanes in GitLab CI rather than on the person's computer. Only a
# pipeline someone or something asked for runs a lane, never a push (lanes push work branches
# and records many times a run): a schedule, "Run pipeline" in the web page, the API, or a
# pipeline trigger token (a project webhook on issue events can call the trigger URL). With
# LANE_ITEM set (fix-login, or github/issue/123: / for the key's :) it builds that item;
# empty, it drains every ready item.
#
# Set once by the person as CI/CD variables (masked; protected where the branch is):
#   - the model key of main's runtime (lanes.runtime in .abcd/config.json): ANTHROPIC_API_KEY
#     for claude, OPENAI_API_KEY for codex (in the lane's sandbox abcd's model gateway holds it);
#   - the command runtime only: LANE_AGENT, the agent command (else lanes.agent);
#   - ${o.abcd.vendored ? `optional ABCD_PACKAGE: what to install instead of ${o.abcd.vendored}` : "ABCD_PACKAGE: which abcd to install (a tarball's URL, or your registry's name@version;\n#     abcd is not on the npm registry yet), unless abcd init --vendor committed its tarball"};
#   - optional LANE_CLAUDE_PACKAGE, LANE_CODEX_PACKAGE: another version of the agent's CLI;
#   - for a GitHub remote, LANE_APP_ID and LANE_APP_PRIVATE_KEY, which the job writes to a 0600
#     file outside the project directory for abcd (ABCD_CONFIG_DIR).
# The runner's clone URL carries CI_JOB_TOKEN, which cannot push by default: give the lane a
# push credential of its own.

variables:
  LANE_ITEM:
    value: ""
    description: "Item to build (fix-login or github:issue:123); empty drains every ready item"

abcd-lane:
  image: node:${CI_NODE_MAJOR}
  timeout: ${minutes} minutes
  # One lane per item at a time: a later job waits for the one in flight, never cancels it.
  # Every drain (empty LANE_ITEM) shares the group abcd-lane-.
  resource_group: abcd-lane-$LANE_ITEM
  rules:
    # Asked for, never on a push: a schedule, the web page, the API or a trigger token.
    - if: '$CI_PIPELINE_SOURCE == "schedule" || $CI_PIPELINE_SOURCE == "web" || $CI_PIPELINE_SOURCE == "api" || $CI_PIPELINE_SOURCE == "trigger"'
    - when: never
  script:
    # ABCD_JOB_DEADLINE (RFC 3339) is the job's start plus its effective timeout (the smaller
    # of the job's and the runner's), so a timed lane ends its last cycle before GitLab kills it.
    - started=$(date -u -d "$CI_JOB_STARTED_AT" +%s)
    - export ABCD_JOB_DEADLINE="$(date -u -d "@$(( started + CI_JOB_TIMEOUT ))" +%Y-%m-%dT%H:%M:%SZ)"
    # A lane runs its agent in bubblewrap (the default --sandbox auto) and refuses to run it
    # unsandboxed, and socat relays its network out; the node image has neither. In a Docker
    # executor bwrap also needs the runner to let it mount /proc in a user namespace: \`privileged = true\`, or security_opt
    # ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"], in the runner's
    # config.toml. Without that the lane refuses (exit 7) with bwrap's own error.
    - apt-get update -q && apt-get install -y -q bubblewrap socat
    # abcd: ${o.abcd.vendored ? 'the tarball committed under .abcd/vendor, unless ABCD_PACKAGE names another' : 'what the CI/CD variable ABCD_PACKAGE names'}.
    - |
      ${install}
    # The agent's CLI, as main's runtime says: Claude Code or Codex at the version abcd is tested with.
    - |
      ${cli}
    - |
      ${appConfig}
    - |
      ${lane}
`;
}
