// `abcd check-login`: look for the person's forge login where a lane could reach it.
import type { Argv } from 'yargs';
import type { Command } from '../command.js';

/** `abcd check-login`: the login check (no unattended lane acts under the person's login), alone, as an unattended lane runs it. */
export const checkLogin: Command = {
  command: 'check-login',
  describe: "look for the person's forge login where an unattended lane would refuse to start (exit 7 if found)",
  refusals: ['git-failed', 'unsafe-environment'],
  usesRemote: true,
  examples: [
    ['abcd check-login', 'check the host of the shared remote (github.com if it has none)'],
    ['abcd check-login --hostname ghe.example.com --json', 'check a GitHub Enterprise host, answer in JSON'],
  ],
  builder: (y: Argv) => y.option('hostname', { type: 'string', describe: "the forge host to check (default: the remote's host)" }),
  async run(args, deps) {
    const { Git } = await import('../../git/git.js');
    const { assertNoLogin, describeGate } = await import('../../forges/login.js');
    const { redactUrl } = await import('../../forges/forge-host.js');
    const hostname = typeof args.hostname === 'string' && args.hostname !== '' ? args.hostname : undefined;
    let remoteUrl: string | undefined;
    if (!hostname) {
      remoteUrl = await new Git(deps.cwd, deps.env).clone.remoteUrl(deps.remote);
    }
    const gate = await assertNoLogin({
      attended: false,
      ...(hostname !== undefined ? { hostname } : {}),
      ...(remoteUrl !== undefined ? { remoteUrl } : {}),
      env: deps.env,
      home: deps.config.home,
    });
    const remote = remoteUrl === undefined ? undefined : redactUrl(remoteUrl);
    let text = describeGate(gate);
    if (gate.status === 'clear' && remoteUrl === undefined && !hostname) {
      text += `\n  (remote "${deps.remote}" has no URL here, so github.com was checked)`;
    }
    if (gate.status !== 'clear') {
      const reason = gate.status === 'not-applicable' ? gate.reason : 'attended';
      return { json: { applies: false, reason, remote }, text };
    }
    return { json: { applies: true, host: gate.host, findings: [], unknown: gate.unknown, remote }, text };
  },
};
