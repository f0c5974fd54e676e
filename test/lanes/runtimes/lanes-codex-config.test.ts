// What of a team's Codex config.toml reaches the cycle's private Codex home, which the agent's
// code can read: only the model and provider settings, never a secret the config holds (MCP
// servers' env, headers, bearer tokens, a key pasted where a variable name goes), the left-out
// keys named and never their values; a config that does not parse is not copied. And the team's
// own CODEX_HOME is hidden by the sandbox, through a symlink too.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../../src/machine/sandbox/bwrap.js';
import { envConfig } from '../../../src/cli/env-config.js';
import { secretPlaces } from '../../../src/machine/sandbox/places.js';
import { makeCodexHome } from '../../../src/lanes/runtimes/codex/codex-home.js';
import { agentCodexConfig, codexRoute, GATEWAY_PROVIDER, throughGateway } from '../../../src/lanes/runtimes/codex/codex-config.js';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';

const CANARIES = [
  'canary-mcp-env',
  'canary-header',
  'canary-env-header',
  'canary-bearer',
  'canary-query',
  'canary-pass',
  'canary-top',
  'canary-profile',
  'sk-canary-key',
];

const TEAM_CONFIG = `
model = "team-model"
model_provider = "team"
model_reasoning_effort = "high"
model_context_window = 200000
api_token = "canary-top"
notify = ["notify-send", "canary-top"]

[model_providers.team]
name = "Team gateway"
base_url = "https://gateway.example.com/v1"
env_key = "TEAM_API_KEY"
wire_api = "responses"
request_max_retries = 3
experimental_bearer_token = "canary-bearer"
http_headers = { "X-Team-Token" = "canary-header" }
env_http_headers = { "X-Org" = "canary-env-header" }
query_params = { "api-version" = "2025-04-01", "api-key" = "canary-query" }

[model_providers.pasted]
name = "pasted"
base_url = "https://user:canary-pass@gateway.example.com/v1"
env_key = "sk-canary-key"

[mcp_servers.tools]
command = "tools-server"
enabled = false
[mcp_servers.tools.env]
TOOLS_TOKEN = "canary-mcp-env"

[profiles.ci]
model = "canary-profile"

[shell_environment_policy]
set = { DEPLOY_KEY = "canary-top" }
`;

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push({ path: join(e.parentPath, e.name), text: await readFile(join(e.parentPath, e.name), 'utf8') });
  }
  return out;
}

describe("the team's Codex config in the agent's home", () => {
  afterAll(cleanupTemp);

  it('keeps the model and where its provider is; no secret the config holds is anywhere in the private home; the drop is named', async () => {
    const team = await tempDir('codex-team');
    await writeFile(join(team, 'config.toml'), TEAM_CONFIG);
    const cycle = await tempDir('codex-cycle');
    const home = await makeCodexHome(cycle, team);

    const files = await filesUnder(home.dir);
    expect(files.map((f) => f.path)).toEqual([join(home.dir, 'config.toml')]);
    for (const f of files) for (const c of CANARIES) expect(f.text, `${c} in ${f.path}`).not.toContain(c);
    expect(parse(files[0]!.text)).toEqual({
      model: 'team-model',
      model_provider: 'team',
      model_reasoning_effort: 'high',
      model_context_window: 200000,
      model_providers: {
        team: {
          name: 'Team gateway',
          base_url: 'https://gateway.example.com/v1',
          env_key: 'TEAM_API_KEY',
          wire_api: 'responses',
          request_max_retries: 3,
          query_params: { 'api-version': '2025-04-01' },
        },
        pasted: { name: 'pasted' },
      },
    });
    expect(home.model).toBe('team-model');
    expect(home.dropped).toEqual([
      'api_token',
      'notify',
      'model_providers.team.experimental_bearer_token',
      'model_providers.team.http_headers',
      'model_providers.team.env_http_headers',
      'model_providers.team.query_params.api-key',
      'model_providers.pasted.base_url',
      'model_providers.pasted.env_key',
      'mcp_servers',
      'profiles',
      'shell_environment_policy',
    ]);
    // What the cycle's log is told: the source and the names left out, never a value.
    expect(home.seeded).toContain(join(team, 'config.toml'));
    expect(home.seeded).toMatch(
      /left out, as the agent can read this copy: api_token, notify, .*mcp_servers, profiles, shell_environment_policy$/,
    );
    for (const c of CANARIES) expect(home.seeded).not.toContain(c);
  });

  it('a config that does not parse is not copied, and the reason names its place but not its text', async () => {
    const team = await tempDir('codex-team');
    await writeFile(join(team, 'config.toml'), 'model = "m"\nsecret_token = "canary-top\n');
    const cycle = await tempDir('codex-cycle');
    const home = await makeCodexHome(cycle, team);
    expect(await readdir(home.dir)).toEqual([]);
    expect(home).toMatchObject({ dropped: [] });
    expect(home.model).toBeUndefined();
    expect(home.seeded).toMatch(/config\.toml is not copied: it is not valid TOML \(line 2, column \d+\): Codex starts with no config$/);
    expect(home.seeded).not.toContain('canary');
  });

  it("the sandbox hides the team's CODEX_HOME, named directly or through a symlink", async () => {
    // Outside /tmp and HOME, which the sandbox hides anyway: where a team's shared config lives.
    const place = await mkdtemp('/var/tmp/abcd-codex-team-');
    try {
      const real = join(place, 'real');
      await mkdir(real);
      await writeFile(join(real, 'config.toml'), 'token = "canary-top"\n');
      await symlink(real, join(place, 'link'));
      const shown = { home: '/nonexistent-home', configDir: '/nonexistent-config', machineDir: '/nonexistent-machine', tmpDir: '/tmp' };
      for (const named of [real, join(place, 'link')]) {
        // The folders the runtimes' CLIs keep, as abcd reads them from its environment (the registry's home variables).
        const hide = secretPlaces({ CODEX_HOME: named }, { ...shown, toolHomes: envConfig({ CODEX_HOME: named }).toolHomes });
        expect(hide).toContain(real);
        const args = bwrapArgs({ hide, binds: [], chdir: '/' });
        const r = await execa('bwrap', [...args, '--', 'cat', join(real, 'config.toml')], { reject: false });
        expect(r.exitCode, r.stderr).toBe(1);
        expect(r.stdout).not.toContain('canary');
        expect(r.stderr).toMatch(/No such file or directory/);
      }
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  });
});

describe("the route of a config's provider through the model gateway", () => {
  const kept = (toml: string) => {
    const c = agentCodexConfig(toml);
    if (!c.ok) throw new Error(c.reason);
    return c.kept;
  };

  it("a team provider keeps its id and env_key; only its base_url becomes the gateway's, and no websocket or login of Codex's own", () => {
    const k = kept(TEAM_CONFIG);
    const route = codexRoute(k)!;
    expect(route).toEqual({ provider: 'team', envKey: 'TEAM_API_KEY', baseUrl: 'https://gateway.example.com/v1', wireApi: 'responses' });
    const written = parse(throughGateway(k, route, 'http://127.0.0.2:4141/v1'));
    expect(written.model_provider).toBe('team');
    expect((written.model_providers as Record<string, unknown>).team).toMatchObject({
      name: 'Team gateway',
      base_url: 'http://127.0.0.2:4141/v1',
      env_key: 'TEAM_API_KEY',
      wire_api: 'responses',
      supports_websockets: false,
      requires_openai_auth: false,
    });
    expect(Object.keys(written.model_providers as object)).toEqual(['team']);
    expect(JSON.stringify(written)).not.toContain('gateway.example.com');
  });

  it("Codex's own provider, named or not, and even with a table of its name, becomes abcd's", () => {
    expect(codexRoute({})).toEqual({ provider: GATEWAY_PROVIDER, envKey: 'OPENAI_API_KEY' });
    expect(codexRoute(kept('model_provider = "openai"'))).toEqual({ provider: GATEWAY_PROVIDER, envKey: 'OPENAI_API_KEY' });
    // A table of that name does not change Codex's own provider: the gateway asks where Codex would.
    const own = kept(
      'model_provider = "openai"\n[model_providers.openai]\nbase_url = "https://proxy.example.com/v1"\nenv_key = "PROXY_KEY"\n',
    );
    expect(codexRoute(own)).toEqual({ provider: GATEWAY_PROVIDER, envKey: 'OPENAI_API_KEY' });
  });

  it('a provider with no key, one the config does not define, or an env_key naming a variable the agent needs, has no route', () => {
    expect(codexRoute(kept('model_provider = "local"\n[model_providers.local]\nbase_url = "http://127.0.0.1:11434/v1"\n'))).toBeUndefined();
    expect(codexRoute(kept('model_provider = "ollama"'))).toBeUndefined();
    expect(codexRoute(kept('model_provider = "p"\n[model_providers.p]\nenv_key = "HOME"\n'))).toBeUndefined();
  });
});
