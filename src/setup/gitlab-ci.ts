// The GitLab CI configuration `abcd init --ci gitlab` writes, as plain text from a template.
import {
  appConfigLines,
  CI_IDLE,
  CI_NODE_MAJOR,
  DEFAULT_TIMEOUT_MINUTES,
  GENERATED_MARKER,
  type LaneCiOptions,
} from './github-workflow.js';

export const GITLAB_CI_PATH = '.gitlab-ci.yml';
/** Where the lanes go when the project already has a .gitlab-ci.yml of its own. */
export const GITLAB_INCLUDE_PATH = '.abcd/ci/gitlab-lanes.yml';

export function renderGitlabCi(o: LaneCiOptions): string {
  const minutes = o.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES;
  const install = o.installCommand;
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
# Runs abcd's unattended lanes in GitLab CI rather than on the person's computer. Run a
# pipeline with LANE_ITEM set to build that item, or empty to drain every ready item;
# scheduled pipelines and pushes to other branches drain.
#
# Set once by the person as CI/CD variables: LANE_AGENT (the agent command a lane runs each
# cycle) and what your agent needs for its model; for a GitHub remote, LANE_APP_ID and
# LANE_APP_PRIVATE_KEY (masked, protected), which the job writes to a 0600 file outside the
# project directory for abcd (ABCD_CONFIG_DIR). The runner's clone URL carries CI_JOB_TOKEN,
# which cannot push by default: give the lane a push credential of its own.

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
    # Lanes push work branches and records under abcd/ (and tags): those pushes start no lane.
    - if: '$CI_COMMIT_BRANCH =~ /^abcd\\//'
      when: never
    - if: '$CI_COMMIT_TAG'
      when: never
    - if: '$CI_PIPELINE_SOURCE == "web" || $CI_PIPELINE_SOURCE == "api" || $CI_PIPELINE_SOURCE == "schedule" || $CI_PIPELINE_SOURCE == "push"'
  script:
    # ABCD_JOB_DEADLINE (RFC 3339) is the job's start plus its effective timeout (the smaller
    # of the job's and the runner's), so a timed lane ends its last cycle before GitLab kills it.
    - started=$(date -u -d "$CI_JOB_STARTED_AT" +%s)
    - export ABCD_JOB_DEADLINE="$(date -u -d "@$(( started + CI_JOB_TIMEOUT ))" +%Y-%m-%dT%H:%M:%SZ)"
    # A lane runs its agent in bubblewrap (the default --sandbox auto) and refuses to run it
    # unsandboxed; the node image has no bubblewrap. In a Docker executor bwrap also needs the
    # runner to let it mount /proc in a user namespace: \`privileged = true\`, or security_opt
    # ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"], in the runner's
    # config.toml. Without that the lane refuses (exit 7) with bwrap's own error.
    - apt-get update -q && apt-get install -y -q bubblewrap
    # Pinned to the abcd that wrote this file (change it to upgrade), unless the CI/CD variable
    # ABCD_PACKAGE names another package spec or a tarball.
    - ${install}
    - |
      ${appConfig}
    - |
      if [ -n "$LANE_ITEM" ]; then
        abcd build "$LANE_ITEM" --agent "$LANE_AGENT" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE"
      else
        abcd drain --agent "$LANE_AGENT" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE" --idle ${CI_IDLE}
      fi
`;
}
