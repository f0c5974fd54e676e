// `abcd setup-app`: the person's one-time GitHub App setup.
import type { Argv } from 'yargs';
import type { Command } from '../command.js';

/** `abcd setup-app`: the person's one-time App setup (the credential unattended lanes use instead of the person's login). */
export const setupApp: Command = {
  command: 'setup-app',
  describe: "set up the GitHub App token abcd's lanes use: prints the steps only you can take, then authorizes abcd",
  refusals: ['forge-rejected', 'deadline', 'unsafe-environment', 'remote-unavailable'],
  examples: [
    ['abcd setup-app', 'print how to register the App in the browser'],
    [
      'abcd setup-app --app-id 123456 --client-id Iv23liXXXX --key-file ~/Downloads/abcd.pem',
      'save the key and settings, then authorize with a device code',
    ],
  ],
  builder: (y: Argv) =>
    y
      .option('app-id', { type: 'string', describe: "the App's numeric App ID (from its settings page)" })
      .option('client-id', { type: 'string', describe: "the App's Client ID" })
      .option('key-file', { type: 'string', describe: 'the private key .pem GitHub downloaded; abcd keeps a 0600 copy' })
      .option('client-secret-file', { type: 'string', describe: 'a file holding the client secret (optional)' }),
  async run(args, deps) {
    const { setupApp: runSetup } = await import('../../forges/github/credentials/setup-app.js');
    const { approvalStep } = await import('../../forges/github/credentials/app-registration.js');
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const r = await runSetup(deps, {
      appId: str(args['app-id']),
      clientId: str(args['client-id']),
      keyFile: str(args['key-file']),
      clientSecretFile: str(args['client-secret-file']),
      // stderr: with --json, stdout carries one JSON object only; the code is for the person's eyes.
      onCode: (c) => deps.out.stderr(approvalStep(c.userCode, c.verificationUri, c.expiresAt) + '\n'),
    });
    const numbered = (steps: string[]) => steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n');
    if (r.state === 'needs-registration') {
      const text =
        `Only you can do these steps, in a browser signed in to GitHub as yourself:\n${numbered(r.personSteps)}\n` +
        `Then run:\n  ${r.next}\nabcd keeps its settings in ${r.configDir} (outside any repository, mode 0600).`;
      return { json: { ...r }, text };
    }
    const text =
      `abcd is authorized as ${r.login} through the App; the token renews itself until ` +
      `${new Date(r.expiresAt).toISOString()} and then from the refresh token kept in ${r.configDir}.\n` +
      `Left for you to do:\n${numbered(r.personSteps)}`;
    return { json: { ...r }, text };
  },
};
