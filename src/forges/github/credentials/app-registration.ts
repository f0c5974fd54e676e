// The steps of App setup that only the person can take, in their browser, signed in as
// themselves: GitHub offers no API to register an App or approve a device code for someone.
// abcd prints them exactly; it cannot do them and does not pretend to.

/** Repository permissions the App asks for. Workflows only if lanes must change .github/workflows. */
export const APP_PERMISSIONS = [
  { name: 'Contents', access: 'Read and write', why: 'push work branches and abcd records' },
  { name: 'Pull requests', access: 'Read and write', why: 'open pull requests and enqueue them' },
  { name: 'Workflows', access: 'Read and write', why: 'optional: only if lanes push changes to .github/workflows' },
  { name: 'Metadata', access: 'Read-only', why: 'mandatory for every App' },
] as const;

/** Why a lane needs Issues: Read and write when the repository's items are GitHub issues. */
export const ISSUES_WHY = "items come from GitHub issues: lanes comment on, close and list them, a private repository's too";

/** The permission lines: Issues when the items are GitHub issues (`issues` true), or as a condition when that is not known. */
export function permissionLines(o: { issues?: boolean }): string[] {
  const issues =
    o.issues === true
      ? [`Issues: Read and write (this repository's ${ISSUES_WHY})`]
      : o.issues === undefined
        ? [`Issues: Read and write (only if ${ISSUES_WHY})`]
        : [];
  const [contents, pulls, ...rest] = APP_PERMISSIONS.map((p) => `${p.name}: ${p.access} (${p.why})`);
  return [contents!, pulls!, ...issues, ...rest];
}

/** Step 1, person only: register the App. `issues`: whether the repository's items are GitHub issues (undefined: not known). */
export function registrationSteps(webUrl: string, o: { issues?: boolean } = {}): string[] {
  const perms = permissionLines(o)
    .map((p) => `      ${p}`)
    .join('\n');
  return [
    `Open ${webUrl}/settings/apps/new (for an organization: ${webUrl}/organizations/<org>/settings/apps/new).`,
    'GitHub App name: anything, e.g. "abcd-<your login>". Homepage URL: your repository\'s URL.',
    'Callback URL: leave empty. Under "Webhook", untick "Active".',
    'Keep "Expire user authorization tokens" ticked (abcd needs the 8-hour token and its refresh token).',
    'Tick "Enable Device Flow".',
    `Repository permissions:\n${perms}`,
    'Where can this GitHub App be installed: "Only on this account". Press "Create GitHub App".',
    'On the App\'s page, note the App ID and the Client ID, then press "Generate a private key" (a .pem downloads).',
    'Optionally press "Generate a new client secret" and save it to a file only you can read.',
    'Press "Install App" and install it on the repository the lanes work on.',
  ];
}

export function nextCommand(): string {
  return 'abcd setup-app --app-id <App ID> --client-id <Client ID> --key-file <downloaded .pem> [--client-secret-file <file>]';
}

/** Step 3, person only: approve abcd on the code page GitHub shows. */
export function approvalStep(userCode: string, verificationUri: string, expiresAt: number): string {
  return (
    `Only you can do this step: open ${verificationUri} in a browser signed in as yourself and enter the code ` +
    `${userCode} (valid until ${new Date(expiresAt).toISOString()}). abcd waits for your approval.`
  );
}
