// Where the person's App settings live and what they look like. They sit OUTSIDE the
// repository, in the person's abcd config directory, so no clone, agent or push can carry them
// (never .abcd/config.json, which the agent can read). Only the host abcd process reads them.
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { GitHubOverrides } from '../../../core/env.js';
import { UnsafeEnvironment } from '../../../core/refusals.js';
import { readPrivateText } from './app-private-file.js';
import { lazySchema } from '../../../core/lazy-schema.js';

export const APP_FILE = 'app.json';
export const KEY_FILE = 'app-key.pem';
export const USER_TOKEN_FILE = 'user-token.json';

export const AppConfigSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    appId: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]),
    /**
     * Needed for the person's own token (device flow, refresh); a CI job that only mints
     * installation tokens from the key has none.
     */
    clientId: z.string().min(1).optional(),
    /** Optional: tokens from the device flow refresh with the client id alone. */
    clientSecret: z.string().min(1).optional(),
    /** The App's private key (PEM); relative paths are inside the config directory. */
    keyFile: z.string().min(1).default(KEY_FILE),
    /** GitHub Enterprise: the REST root and the web root (for /login/...). */
    apiUrl: z.url().optional(),
    webUrl: z.url().optional(),
    /**
     * The repository permissions the person granted the App when registering it (GitHub does not
     * report them for a user token): `{"workflows": "write"}` lets lanes push workflow changes.
     */
    permissions: z.record(z.string(), z.enum(['read', 'write'])).optional(),
    /**
     * The token git and the forge calls get. `user` (the default with a clientId): the person's
     * own token through the App, minted by the device flow. `installation` (the default without
     * one, as in a CI job that has only the key): the App's bot, limited to the one repository
     * and the permissions a lane needs, minted from the key by each process.
     */
    token: z.enum(['user', 'installation']).optional(),
  }),
);
export type AppConfig = z.infer<typeof AppConfigSchema>;

const APP_EXAMPLE = '{"v": 1, "appId": 123456, "clientId": "Iv23li...", "keyFile": "app-key.pem"}';

export interface AppPaths {
  dir: string;
  app: string;
  userToken: string;
}

/** The App's files in the config folder (Deps.config.configDir: ABCD_CONFIG_DIR or its default). */
export function appPaths(dir: string): AppPaths {
  return { dir, app: join(dir, APP_FILE), userToken: join(dir, USER_TOKEN_FILE) };
}

export function keyPath(paths: AppPaths, config: AppConfig): string {
  return isAbsolute(config.keyFile) ? config.keyFile : join(paths.dir, config.keyFile);
}

/** Parses a JSON file against a schema; a bad one names the file and shows the shape wanted. */
export function parseConfigFile<T>(path: string, text: string, schema: z.ZodType<T>, example: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw malformed(path, `not JSON (${(e as Error).message})`, example);
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
    throw malformed(path, why, example);
  }
  return r.data;
}

function malformed(path: string, why: string, example: string): UnsafeEnvironment {
  return new UnsafeEnvironment(
    `${path} is malformed: ${why}. Expected for example ${example}. Fix the file or run "abcd setup-app" again.`,
    { path, reason: 'malformed', why },
  );
}

/** Reads app.json (mode-checked). Refuses when there is none: the App is not set up. */
export async function loadAppConfig(paths: AppPaths): Promise<AppConfig> {
  const text = await readPrivateText(paths.app, "abcd's App settings");
  if (text === undefined) {
    throw new UnsafeEnvironment(`no GitHub App is set up for abcd (${paths.app} does not exist): run "abcd setup-app" once.`, {
      path: paths.app,
      reason: 'not-set-up',
    });
  }
  return parseConfigFile(paths.app, text, AppConfigSchema, APP_EXAMPLE);
}

/** Which token this App setting gives git and the forge calls (see AppConfig.token). */
export function tokenKindOf(config: AppConfig): 'user' | 'installation' {
  return config.token ?? (config.clientId ? 'user' : 'installation');
}

/** Reads the App's private key (mode-checked). */
export async function loadPrivateKey(paths: AppPaths, config: AppConfig): Promise<string> {
  const path = keyPath(paths, config);
  const pem = await readPrivateText(path, "the App's private key");
  if (pem === undefined) {
    throw new UnsafeEnvironment(
      `the App's private key ${path} does not exist: download one from the App's settings page and run ` +
        `"abcd setup-app --key-file <downloaded.pem>".`,
      { path, reason: 'no-key' },
    );
  }
  return pem;
}

export interface GitHubUrls {
  /** REST root, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  api: string;
  /** Web root for /login/..., e.g. https://github.com. */
  web: string;
}

/** ABCD_GITHUB_API_URL / ABCD_GITHUB_URL win (tests, Enterprise), then app.json, then github.com. */
export function githubUrls(over: GitHubOverrides, config?: Pick<AppConfig, 'apiUrl' | 'webUrl'>): GitHubUrls {
  const api = trimSlash(over.apiUrl || config?.apiUrl || 'https://api.github.com');
  const web = trimSlash(over.webUrl || config?.webUrl || webFromApi(api));
  return { api, web };
}

// GitHub's own layout: api.github.com → github.com; api.<tenant>.ghe.com → <tenant>.ghe.com;
// Enterprise Server serves the REST API under /api/v3 of the web host.
function webFromApi(api: string): string {
  if (/^https:\/\/api\.github\.com$/.test(api)) return 'https://github.com';
  if (/^https:\/\/api\.[^/]+\.ghe\.com$/.test(api)) return api.replace('://api.', '://');
  return api.replace(/\/api\/v3$/, '');
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
