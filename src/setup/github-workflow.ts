// The GitHub Actions workflow `abcd init --ci github` writes. Plain text from a template:
// abcd carries no YAML library at run time, and test/init-ci.test.ts parses the output.

/** First line of every CI file abcd writes; `init` recognises its own files by it. */
export const GENERATED_MARKER = '# abcd lanes: written by `abcd init';

export const GITHUB_WORKFLOW_PATH = '.github/workflows/abcd-lanes.yml';

export interface LaneCiOptions {
  /** The job's hard limit in minutes; ABCD_JOB_DEADLINE is derived from it. */
  timeoutMinutes?: number;
  /** How the job gets abcd: a pinned install of this very version (package-spec.ts). */
  installCommand: string;
}

export const DEFAULT_TIMEOUT_MINUTES = 60;
// The Node line the lane jobs install: a maintained LTS within package.json's engines (>=22),
// the one abcd's own test suite runs on.
export const CI_NODE_MAJOR = 24;
// A drain with no work left ends after this, rather than hold the runner until the deadline.
export const CI_IDLE = '2m';

/**
 * Writes the App's id and key (from the job's variables) into a private abcd config directory
 * outside the workspace and points ABCD_CONFIG_DIR at it for the later steps. abcd reads its App
 * settings only from there (app-config.ts); the key never enters abcd's own environment.
 */
export function appConfigLines(parentDir: string): string[] {
  return [
    'umask 077',
    `dir="${parentDir}/abcd-config"`,
    'mkdir -p "$dir"',
    `printf '%s\\n' "$LANE_APP_PRIVATE_KEY" > "$dir/app-key.pem"`,
    `node -e 'process.stdout.write(JSON.stringify({ v: 1, appId: process.env.LANE_APP_ID, keyFile: "app-key.pem" }) + "\\n")' > "$dir/app.json"`,
  ];
}

// The first step starts after the runner has set the job up (image, checkout of actions);
// its clock stands in for the job's start, so the deadline is moved this much earlier.
const JOB_SETUP_MARGIN_SECONDS = 120;

/** The sandbox step's commands: bubblewrap, and the AppArmor restriction lifted where there is one. */
export const SANDBOX_SETUP: readonly string[] = [
  'sudo apt-get update -q',
  'sudo apt-get install -y -q bubblewrap',
  'if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then',
  '  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
  'fi',
  'bwrap --version',
];

// An Actions expression; kept out of the template literal's own ${...} syntax.
const expr = (e: string): string => '${{ ' + e + ' }}';

export function renderGithubWorkflow(o: LaneCiOptions): string {
  const minutes = o.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES;
  const install = o.installCommand;
  const appConfig = appConfigLines('$RUNNER_TEMP').join('\n          ');
  return `${GENERATED_MARKER} --ci github\`; edit freely, \`--force\` rewrites it.
#
# Runs abcd's unattended lanes here rather than on the person's computer, where their own
# GitHub login is within reach (a lane never acts under the person's login). Dispatch it with an item to build that item, or
# without one to drain every ready item; the schedule and pushes to other branches drain.
#
# Set once by the person in the repository's settings (\`abcd setup-app\` walks through the App):
#   - variable LANE_APP_ID and secret LANE_APP_PRIVATE_KEY: the GitHub App lanes push with
#     (an installation token minted per cycle; the job writes them to a private config dir);
#   - variable LANE_AGENT: the agent command a lane runs each cycle;
#   - the secret your agent needs for its model, added to the lane step's env below.
# Never map GITHUB_TOKEN or GH_TOKEN into this job's environment: the login check finds it
# and refuses, and git would send it instead of the App's token.
name: abcd lanes

on:
  workflow_dispatch:
    inputs:
      item:
        description: "Item to build (fix-login or github:issue:123); empty drains every ready item"
        type: string
        required: false
        default: ""
  schedule:
    - cron: "17 */6 * * *"
  # Lanes push work branches and records under abcd/ with the App's token, and a push made
  # with an App token starts workflows: without this each lane would start the next.
  push:
    branches-ignore:
      - "abcd/**"

# The job's own token only reads; every push goes through the App's token.
permissions:
  contents: read

jobs:
  lane:
    runs-on: ubuntu-latest
    timeout-minutes: ${minutes}
    # One lane per item at a time. A newer run waits rather than cancel the one in flight
    # (preserve and coalesce); GitHub keeps only the newest pending run of a group.
    concurrency:
      group: abcd-lane-${expr("inputs.item || 'drain'")}
      cancel-in-progress: false
    steps:
      - name: Work out the job's deadline
        # ABCD_JOB_DEADLINE (RFC 3339) lets a timed lane end its last cycle before GitHub
        # kills the job at timeout-minutes (${minutes}; change both together).
        run: |
          deadline=$(( $(date -u +%s) + ${minutes} * 60 - ${JOB_SETUP_MARGIN_SECONDS} ))
          echo "ABCD_JOB_DEADLINE=$(date -u -d "@$deadline" +%Y-%m-%dT%H:%M:%SZ)" >> "$GITHUB_ENV"
      - uses: actions/checkout@v4
        with:
          # Otherwise the job's token stays in .git/config and git sends it instead of the
          # App's token abcd hands git for each push.
          persist-credentials: false
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: ${CI_NODE_MAJOR}
      - name: Let the lane's sandbox start
        # A lane runs its agent in bubblewrap (the default --sandbox auto) and refuses to run it
        # unsandboxed. The runner image has no bubblewrap, and on Ubuntu 24.04 AppArmor refuses
        # unprivileged user namespaces ("bwrap: setting up uid map: Permission denied") until
        # this sysctl lifts the restriction on the job's own machine (older images have no such knob).
        run: |
          ${SANDBOX_SETUP.join('\n          ')}
      - name: Install abcd
        # Pinned to the abcd that wrote this file; change it to upgrade.
        run: ${install}
      - name: Give abcd the App's key
        env:
          LANE_APP_ID: ${expr('vars.LANE_APP_ID')}
          LANE_APP_PRIVATE_KEY: ${expr('secrets.LANE_APP_PRIVATE_KEY')}
        run: |
          ${appConfig}
          echo "ABCD_CONFIG_DIR=$dir" >> "$GITHUB_ENV"
      - name: Run the lane
        env:
          # Through the environment, never pasted into the script: an item cannot inject shell.
          LANE_ITEM: ${expr('inputs.item')}
          LANE_AGENT: ${expr('vars.LANE_AGENT')}
        run: |
          if [ -n "$LANE_ITEM" ]; then
            abcd build "$LANE_ITEM" --agent "$LANE_AGENT" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE"
          else
            abcd drain --agent "$LANE_AGENT" --lifecycle timed --deadline "$ABCD_JOB_DEADLINE" --idle ${CI_IDLE}
          fi
`;
}
