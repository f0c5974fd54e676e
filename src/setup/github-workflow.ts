// The GitHub Actions workflow `abcd init --ci github` writes. Plain text from a template (the
// comments are half of it), and test/init-ci.test.ts parses the output and runs its steps.
import {
  abcdInstallLines,
  cliInstallLines,
  cliPackageVariable,
  INSTALLED_RUNTIMES,
  laneLines,
  MODEL_KEY_SECRETS,
  type AbcdSource,
} from './ci-lane-lines.js';

/** First line of every CI file abcd writes; `init` recognises its own files by it. */
export const GENERATED_MARKER = '# abcd lanes: written by `abcd init';

export const GITHUB_WORKFLOW_PATH = '.github/workflows/abcd-lanes.yml';

export interface LaneCiOptions {
  /** The job's hard limit in minutes; ABCD_JOB_DEADLINE is derived from it. */
  timeoutMinutes?: number;
  /** How the job gets abcd: the vendored tarball, or what ABCD_PACKAGE names. */
  abcd: Omit<AbcdSource, 'variable'>;
  /** The label that makes an issue ready (the issue source's first ready label). */
  readyLabel?: string;
}

export const DEFAULT_READY_LABEL = 'abcd:ready';
/** Who may start a lane by commenting, unless the repository variable says otherwise. */
export const DEFAULT_ASSOCIATIONS = ['OWNER', 'MEMBER', 'COLLABORATOR'] as const;

export const DEFAULT_TIMEOUT_MINUTES = 60;
// The Node line the lane jobs install: a maintained LTS within package.json's engines (>=22),
// the one abcd's own test suite runs on.
export const CI_NODE_MAJOR = 24;
// A drain with no work left ends after this, rather than hold the runner until the deadline.
export const CI_IDLE = '2m';
// A build of one item ends this soon once its item has nothing left to do, rather than hold the
// runner idle: a later request (a new comment, a dispatch) starts a run of its own.
export const CI_BUILD_IDLE = '5s';

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

/**
 * The sandbox step's commands: bubblewrap and socat (the relay that carries the sandbox's network
 * out; without it a slower one in Node does), and the AppArmor restriction lifted where there is one.
 */
export const SANDBOX_SETUP: readonly string[] = [
  'sudo apt-get update -q',
  'sudo apt-get install -y -q bubblewrap socat',
  'if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then',
  '  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
  'fi',
  'bwrap --version',
];

// An Actions expression; kept out of the template literal's own ${...} syntax.
const expr = (e: string): string => '${{ ' + e + ' }}';

/**
 * The gate job's one step: which item this event builds, and whether it may start a lane at all.
 * It runs before anything else (no checkout, no install), reads the event only through its
 * environment (a label or a comment is anyone's text and never pasted into the script), and
 * ends green with `go=false` for what is not a request, so strangers' comments cost seconds.
 */
export const GATE_SCRIPT: readonly string[] = [
  'skip() { echo "no lane: $1"; echo "go=false" >> "$GITHUB_OUTPUT"; exit 0; }',
  'case "$LANE_EVENT" in',
  '  issues | issue_comment)',
  '    case "$LANE_ISSUE" in "" | *[!0-9]*) skip "the event names no issue number" ;; esac',
  '    item="github:issue:$LANE_ISSUE" ;;',
  '  *) item="$LANE_INPUT_ITEM" ;;',
  'esac',
  // Labelling an issue takes triage access already: the label is the request.
  'if [ "$LANE_EVENT" = issues ] && [ "$LANE_LABEL" != "$LANE_READY_LABEL" ]; then',
  '  skip "the label added is not $LANE_READY_LABEL"',
  'fi',
  'if [ "$LANE_EVENT" = issue_comment ]; then',
  '  [ -z "$LANE_ON_PULL_REQUEST" ] || skip "a comment on a pull request"',
  // abcd posts its result comment under the App: a bot never starts a lane (nor would it loop).
  '  [ "$LANE_COMMENTER_TYPE" != Bot ] || skip "a comment by a bot"',
  '  [ "$LANE_ISSUE_READY" = true ] || skip "issue #$LANE_ISSUE is not labelled $LANE_READY_LABEL"',
  `  allowed="\${LANE_ASSOCIATIONS:-${DEFAULT_ASSOCIATIONS.join(' ')}}"`,
  '  case " $allowed " in',
  '    *" ${LANE_ASSOCIATION:-NONE} "*) ;;',
  '    *) skip "the commenter is ${LANE_ASSOCIATION:-NONE} here, not one of: $allowed" ;;',
  '  esac',
  'fi',
  // A dispatched item is typed by a person; one abcd would refuse fails here, in plain words.
  'case "$item" in *[!a-z0-9:._-]*)',
  '  echo "abcd: \\"$item\\" is not an item (lowercase letters, digits, :, ., _, -)" >&2',
  '  exit 2 ;;',
  'esac',
  'group="abcd-lane-$(printf \'%s\' "${item:-drain}" | tr : -)"',
  '{ echo "go=true"; echo "item=$item"; echo "group=$group"; } >> "$GITHUB_OUTPUT"',
  'echo "lane for ${item:-every ready item} ($group)"',
];

/** A string as a YAML double-quoted scalar and as an Actions expression literal. */
function yamlString(s: string): string {
  return JSON.stringify(s);
}
function exprString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function renderGithubWorkflow(o: LaneCiOptions): string {
  const minutes = o.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES;
  const indent = (lines: string[]) => lines.join('\n          ');
  const install = indent(abcdInstallLines({ ...o.abcd, variable: 'LANE_PACKAGE' }));
  const cli = indent(cliInstallLines((name, value) => `echo "${name}=${value}" >> "$GITHUB_ENV"`));
  const lane = indent(laneLines({ item: '$LANE_ITEM', idle: CI_IDLE, buildIdle: CI_BUILD_IDLE }));
  const keys = MODEL_KEY_SECRETS.map((k) => `${k}: ${expr(`secrets.${k}`)}`).join('\n          ');
  const cliVars = INSTALLED_RUNTIMES.map((r) => `${cliPackageVariable(r)}: ${expr(`vars.${cliPackageVariable(r)}`)}`).join('\n          ');
  const label = o.readyLabel ?? DEFAULT_READY_LABEL;
  const appConfig = appConfigLines('$RUNNER_TEMP').join('\n          ');
  return `${workflowHead(o, label)}${gateJob(label)}${laneJob(o, { minutes, install, cli, lane, keys, cliVars, appConfig })}`;
}

/** The workflow's opening comment, its name, its triggers and its token's permissions. */
function workflowHead(o: LaneCiOptions, label: string): string {
  return `${GENERATED_MARKER} --ci github\`; edit freely, \`--force\` rewrites it.
#
# Runs abcd's unattended lanes here rather than on the person's computer, where their own
# GitHub login is within reach (a lane never acts under the person's login). What starts one:
#   - an issue labelled ${JSON.stringify(label)}, or a comment on such an issue by someone the repository
#     trusts (author association OWNER, MEMBER or COLLABORATOR, or the repository variable
#     LANE_AUTHOR_ASSOCIATIONS, space-separated): builds that one issue;
#   - a dispatch with an item: builds that item; without one, and on the schedule: drains
#     every ready item.
# No push trigger: every push to main would start a drain, and lanes push their records under
# abcd/ many times a run. The team's own workflows that run on every push need
# branches-ignore: ['abcd/**'] (abcd init lists them; abcd init --fix adds it).
# merge_group is not needed here: teams using GitHub's merge queue add it to the workflows
# of their required checks, which test what abcd's pull requests enqueue.
#
# Set once by the person in the repository's settings (\`abcd setup-app\` walks through the App):
#   - variable LANE_APP_ID and secret LANE_APP_PRIVATE_KEY: the GitHub App lanes push with
#     (an installation token minted per cycle; the job writes them to a private config dir);
#   - the model key of main's runtime (lanes.runtime in .abcd/config.json): secret
#     ANTHROPIC_API_KEY for claude, OPENAI_API_KEY for codex. Only the lane step gets them, and
#     in the lane's sandbox abcd's model gateway holds them: the agent never does;
#   - the command runtime only: variable LANE_AGENT, the agent command (else lanes.agent);
#   - ${o.abcd.vendored ? `optional variable ABCD_PACKAGE: what to install instead of ${o.abcd.vendored}` : "variable ABCD_PACKAGE: which abcd to install (a tarball's URL, or your registry's name@version;\n#     abcd is not on the npm registry yet), unless abcd init --vendor committed its tarball"};
#   - optional variables LANE_CLAUDE_PACKAGE, LANE_CODEX_PACKAGE: another version of the CLI
#     than the one abcd is tested with.
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
  issues:
    types: [labeled]
  issue_comment:
    types: [created]

# The job's own token only reads. Every push and every comment on an issue goes through the
# App's token, so it needs no issues: write (grant it only if your App cannot write issues);
# it never reaches abcd or the agent either way.
permissions:
  contents: read

`;
}

/** The gate job: which item, and whether whoever asked may start a lane. */
function gateJob(label: string): string {
  return `jobs:
  gate:
    # Before anything runs: which item, and whether whoever asked may start a lane.
    runs-on: ubuntu-latest
    timeout-minutes: 2
    permissions: {}
    outputs:
      go: ${expr('steps.who.outputs.go')}
      item: ${expr('steps.who.outputs.item')}
      group: ${expr('steps.who.outputs.group')}
    steps:
      - name: Check who asked
        id: who
        env:
          LANE_EVENT: ${expr('github.event_name')}
          LANE_INPUT_ITEM: ${expr('inputs.item')}
          LANE_ISSUE: ${expr('github.event.issue.number')}
          LANE_LABEL: ${expr('github.event.label.name')}
          LANE_READY_LABEL: ${yamlString(label)}
          LANE_ISSUE_READY: ${yamlString(expr(`contains(github.event.issue.labels.*.name, ${exprString(label)})`))}
          LANE_ON_PULL_REQUEST: ${expr('github.event.issue.pull_request.url')}
          LANE_COMMENTER_TYPE: ${expr('github.event.comment.user.type')}
          LANE_ASSOCIATION: ${expr('github.event.comment.author_association')}
          LANE_ASSOCIATIONS: ${expr('vars.LANE_AUTHOR_ASSOCIATIONS')}
        run: |
          ${GATE_SCRIPT.join('\n          ')}
`;
}

/** The lane job: the deadline, the sandbox, abcd, the agent's CLI, the App's key, then the lane. */
function laneJob(
  o: LaneCiOptions,
  v: { minutes: number; install: string; cli: string; lane: string; keys: string; cliVars: string; appConfig: string },
): string {
  const { minutes, install, cli, lane, keys, cliVars, appConfig } = v;
  return `  lane:
    needs: gate
    if: ${expr("needs.gate.outputs.go == 'true'")}
    runs-on: ubuntu-latest
    timeout-minutes: ${minutes}
    # One lane per item at a time (abcd-lane-github-issue-123, abcd-lane-fix-login,
    # abcd-lane-drain). A newer run waits rather than cancel the one in flight (preserve and
    # coalesce); GitHub keeps only the newest pending run of a group.
    concurrency:
      group: ${expr('needs.gate.outputs.group')}
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
        # unsandboxed; socat relays its network out. The runner image has neither, and on Ubuntu
        # 24.04 AppArmor refuses unprivileged user namespaces ("bwrap: setting up uid map:
        # Permission denied") until this sysctl lifts the restriction on the job's own machine
        # (older images have no such knob).
        run: |
          ${SANDBOX_SETUP.join('\n          ')}
      - name: Install abcd
        # ${
          o.abcd.vendored
            ? `The tarball committed under .abcd/vendor (no network), unless the repository variable
        # ABCD_PACKAGE names another package spec or a tarball.`
            : "What the repository variable ABCD_PACKAGE names: a tarball's URL or a package spec."
        }
        env:
          LANE_PACKAGE: ${expr('vars.ABCD_PACKAGE')}
        run: |
          ${install}
      - name: Install the agent's CLI
        # Main's runtime decides: Claude Code or Codex at the version abcd is tested with.
        env:
          ${cliVars}
        run: |
          ${cli}
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
          LANE_ITEM: ${expr('needs.gate.outputs.item')}
          LANE_AGENT: ${expr('vars.LANE_AGENT')}
          # The model keys reach this step only; the agent gets one only through its runtime's
          # env list in main's config (lanes.claude.env), never by inheritance.
          ${keys}
        run: |
          ${lane}
`;
}
