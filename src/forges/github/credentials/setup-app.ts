// `abcd setup-app`: the one-time setup of the App credential. abcd does what it can (save the
// key and settings 0600 in the person's config directory, run the device flow, store the
// refresh token atomically) and names the steps only the person can take in their browser.
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Deps } from '../../../core/deps.js';
import { isRefusal, UsageError } from '../../../core/refusals.js';
import { runDeviceFlow, type DeviceCode } from './app-device-flow.js';
import { appPaths, githubUrls, KEY_FILE, keyPath, loadAppConfig, type AppConfig } from './app-config.js';
import { assertPrivate, ensurePrivateDir, writePrivateAtomic } from './app-private-file.js';
import { ISSUES_WHY, nextCommand, registrationSteps } from './app-registration.js';
import { writeUserToken } from './token-file.js';
import { withTokenLock } from './token-lock.js';
import { resolveLogin } from './token-user.js';

export interface SetupAppInput {
  appId?: string;
  clientId?: string;
  /** The .pem GitHub downloaded; copied into the config directory with mode 0600. */
  keyFile?: string;
  /** A file holding the client secret (never argv: other users can read a command line). */
  clientSecretFile?: string;
  /** Shows the person the device code; the verb itself prints nothing. */
  onCode(code: DeviceCode): void;
  httpTimeoutMs?: number;
}

export type SetupAppResult =
  | { state: 'needs-registration'; configDir: string; personSteps: string[]; next: string }
  | { state: 'authorized'; configDir: string; login: string; expiresAt: number; keySaved: boolean; personSteps: string[] };

export async function setupApp(deps: Deps, input: SetupAppInput): Promise<SetupAppResult> {
  const paths = appPaths(deps.config.configDir);
  await ensurePrivateDir(paths.dir);
  const existing = await readExisting(paths, input);
  const appId = input.appId ?? (existing ? String(existing.appId) : undefined);
  const clientId = input.clientId ?? existing?.clientId;
  const urls = githubUrls(deps.config.github, existing);
  const issues = await itemsAreIssues(deps);
  if (!appId || !clientId) {
    return { state: 'needs-registration', configDir: paths.dir, personSteps: registrationSteps(urls.web, { issues }), next: nextCommand() };
  }
  if (!/^\d+$/.test(appId)) throw new UsageError(`--app-id must be the App's numeric ID, not "${appId}".`, 'argument');

  // A different App makes the old client secret wrong: keep the old settings only for the same App.
  const same = existing && String(existing.appId) === appId ? existing : undefined;
  const config: AppConfig = { ...same, v: 1, appId: Number(appId), clientId, keyFile: same?.keyFile ?? KEY_FILE };
  if (input.clientSecretFile) config.clientSecret = await readSecretFile(input.clientSecretFile);
  if (input.keyFile) await saveKey(input.keyFile, keyPath(paths, config));
  await writePrivateAtomic(paths.app, JSON.stringify(config, null, 2) + '\n');
  const keySaved = await assertPrivate(keyPath(paths, config), "the App's private key");

  const pair = await runDeviceFlow({
    webUrl: urls.web,
    clientId,
    clock: deps.clock,
    onCode: input.onCode,
    httpTimeoutMs: input.httpTimeoutMs,
  });
  // Under the refresh lock: a lane refreshing the old pair at this moment must not overwrite the new one.
  const login = await withTokenLock(paths.userToken, { clock: deps.clock, host: deps.config.host }, async () => {
    await writeUserToken(paths.userToken, { v: 1, ...pair });
    const who = await resolveLogin({ urls, httpTimeoutMs: input.httpTimeoutMs }, pair.token);
    await writeUserToken(paths.userToken, { v: 1, ...pair, login: who });
    return who;
  });
  const personSteps = [
    ...(input.keyFile ? [`Delete the downloaded key ${input.keyFile}: abcd keeps its own copy (0600).`] : []),
    ...(keySaved ? [] : ['Installation tokens (optional) need the App\'s private key: run "abcd setup-app --key-file <.pem>".']),
    'Make sure the App is installed on the repository the lanes work on (App settings → Install App).',
    ...(issues
      ? [
          `Make sure the App has Issues: Read and write (this repository's ${ISSUES_WHY}): if not, add it in the App's settings ` +
            "(Permissions & events), then accept the new permissions on the App's installation.",
        ]
      : []),
  ];
  return { state: 'authorized', configDir: paths.dir, login, expiresAt: pair.expiresAt, keySaved, personSteps };
}

// An unreadable or malformed app.json is replaced when the flags name both ids; otherwise it stands.
async function readExisting(paths: ReturnType<typeof appPaths>, input: SetupAppInput): Promise<AppConfig | undefined> {
  try {
    return await loadAppConfig(paths);
  } catch (e) {
    if (isRefusal(e) && (e.data.reason === 'not-set-up' || (e.data.reason === 'malformed' && input.appId && input.clientId))) {
      return undefined;
    }
    throw e;
  }
}

async function saveKey(from: string, to: string): Promise<void> {
  let pem: string;
  try {
    pem = await readFile(from, 'utf8');
    createPrivateKey(pem);
  } catch (e) {
    throw new UsageError(`--key-file ${from} is not a readable PEM private key (${(e as Error).message}).`, 'path', { path: from });
  }
  await writePrivateAtomic(to, pem);
}

async function readSecretFile(path: string): Promise<string> {
  let secret: string;
  try {
    secret = (await readFile(path, 'utf8')).trim();
  } catch (e) {
    throw new UsageError(`cannot read --client-secret-file ${path} (${(e as Error).message}).`, 'path', { path });
  }
  if (secret === '') throw new UsageError(`--client-secret-file ${path} is empty.`, 'path', { path });
  return secret;
}

/**
 * Whether the repository setup-app runs in takes its items from GitHub issues (items.github in
 * its .abcd/config.json): then the App needs Issues. Undefined outside a repository or when the
 * file cannot be read: the steps then name the permission with its condition.
 */
async function itemsAreIssues(deps: Deps): Promise<boolean | undefined> {
  // The working tree's top: the nearest folder with a .git (a folder, or a worktree's file).
  let top: string | undefined;
  for (let dir = resolve(deps.cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) {
      top = dir;
      break;
    }
    if (dirname(dir) === dir) return undefined;
  }
  try {
    const config = JSON.parse(await readFile(join(top, '.abcd', 'config.json'), 'utf8')) as { items?: { github?: unknown } };
    return config.items?.github !== undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? false : undefined;
  }
}
