// What of a team's Codex `config.toml` a lane's agent may see. The cycle's Codex home is
// inside the sandbox, where the agent's code reads it, and a team's config often holds
// secrets (an MCP server's `env`, `http_headers`, a provider's bearer token). So the config is
// parsed and only an allow-list is written back: the keys that choose the model and the
// provider tables' fields that reach it, each checked for its kind of value. Everything else
// is dropped and named (never its value). A key Codex adds later is dropped until someone
// decides it holds nothing secret: the failure direction is "Codex runs without it".
import { parse, stringify, TomlError } from 'smol-toml';

type Check = (v: unknown) => boolean;
const text: Check = (v) => typeof v === 'string';
const count: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const flag: Check = (v) => typeof v === 'boolean';
// env_key names a variable; a value that is not a name may be the key itself, pasted in.
const envName: Check = (v) => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(v);

/** Top-level keys that choose the model and how it is asked. */
const MODEL_KEYS = new Map<string, Check>([
  ['model', text],
  ['model_provider', text],
  ['model_reasoning_effort', text],
  ['model_reasoning_summary', text],
  ['model_verbosity', text],
  ['model_context_window', count],
  ['model_auto_compact_token_limit', count],
  ['model_max_output_tokens', count],
  ['model_supports_reasoning_summaries', flag],
]);

/** A `model_providers.<id>` table's fields that say where the model is and how to talk to it. */
const PROVIDER_KEYS = new Map<string, Check>([
  ['name', text],
  ['base_url', plainUrl],
  ['env_key', envName],
  ['wire_api', text],
  ['request_max_retries', count],
  ['stream_max_retries', count],
  ['stream_idle_timeout_ms', count],
  ['requires_openai_auth', flag],
  ['supports_websockets', flag],
]);

/** Query parameters a provider may carry: the API version Azure asks for, never a `key=`. */
const QUERY_PARAMS = new Set(['api-version']);

// A name shown as it is; anything else (a quoted key could hold anything) is not repeated.
const BARE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type AgentCodexConfig =
  | { ok: true; toml: string; kept: Record<string, unknown>; model?: string; baseUrl?: string; dropped: string[] }
  | { ok: false; reason: string };

/** The allow-listed part of `toml` as TOML, the names of what was dropped, or why it is not a config. */
export function agentCodexConfig(toml: string): AgentCodexConfig {
  let table: Record<string, unknown>;
  try {
    table = parse(toml);
  } catch (e) {
    // The parser's message quotes the offending line, which may be a secret: only its place is told.
    const at = e instanceof TomlError ? ` (line ${e.line}, column ${e.column})` : '';
    return { ok: false, reason: `it is not valid TOML${at}` };
  }
  const out: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    if (key === 'model_providers' && isTable(value)) {
      const providers = keepProviders(value, dropped);
      if (Object.keys(providers).length > 0) out[key] = providers;
    } else if (MODEL_KEYS.get(key)?.(value)) out[key] = value;
    else dropped.push(nameOf(key));
  }
  const model = typeof out.model === 'string' && out.model.length <= 200 ? out.model : undefined;
  // Where the chosen provider is: the sandbox's egress proxy lets the agent reach it.
  const provider =
    typeof out.model_provider === 'string' && isTable(out.model_providers) ? out.model_providers[out.model_provider] : undefined;
  const baseUrl = isTable(provider) && typeof provider.base_url === 'string' ? provider.base_url : undefined;
  return { ok: true, toml: stringify(out), kept: out, ...(model ? { model } : {}), ...(baseUrl ? { baseUrl } : {}), dropped };
}

/** The provider abcd names for Codex's built-in OpenAI provider, which a config cannot point elsewhere. */
export const GATEWAY_PROVIDER = 'abcd-gateway';

/** Where a kept config sends Codex's model requests, and with which key: what the model gateway needs. */
export interface CodexRoute {
  /** The provider the agent's config chooses once it goes through the gateway. */
  provider: string;
  /** The provider's own base_url; absent for the built-in provider (OPENAI_BASE_URL or OpenAI's API then). */
  baseUrl?: string;
  /** The variable the provider's key is read from (`env_key`; `OPENAI_API_KEY` for the built-in one). */
  envKey: string;
  /** The provider's `wire_api`, when its table names one: the API it speaks. */
  wireApi?: string;
}

/**
 * The route of the provider a kept config chooses: the built-in `openai` when it names none,
 * a `model_providers` table with an `env_key`. Anything else (a provider with no key, one the
 * config does not define) has no key for the gateway to hold: undefined.
 */
export function codexRoute(kept: Record<string, unknown>): CodexRoute | undefined {
  const chosen = typeof kept.model_provider === 'string' ? kept.model_provider : 'openai';
  const given = isTable(kept.model_providers) ? kept.model_providers[chosen] : undefined;
  const table = isTable(given) ? given : undefined;
  const baseUrl = typeof table?.base_url === 'string' ? { baseUrl: table.base_url } : {};
  // Codex keeps its built-in `openai` whatever a table of that name says (its own providers are
  // not overridden): abcd names one of its own, asking where Codex would.
  if (chosen === 'openai') return { provider: GATEWAY_PROVIDER, envKey: 'OPENAI_API_KEY' };
  if (typeof table?.env_key !== 'string' || HELD_BY_ABCD.has(table.env_key)) return undefined;
  const wire = typeof table.wire_api === 'string' ? { wireApi: table.wire_api } : {};
  return { provider: chosen, envKey: table.env_key, ...baseUrl, ...wire };
}

// Variables the agent's environment needs for itself: an env_key naming one is no key to hold
// (the agent would get a placeholder for its HOME or PATH).
const HELD_BY_ABCD = new Set(['PATH', 'HOME', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'CODEX_HOME', 'OPENAI_BASE_URL']);

/**
 * The kept config with its provider pointed at abcd's model gateway: the gateway's base URL, the
 * same `env_key` (whose variable the agent gets as a placeholder), the Responses API over HTTP
 * (the gateway carries no websocket) and no login of Codex's own. No URL of the team's is in it.
 */
export function throughGateway(kept: Record<string, unknown>, route: CodexRoute, gatewayUrl: string): string {
  const given = isTable(kept.model_providers) ? kept.model_providers[route.provider] : undefined;
  const own = isTable(given) ? given : { name: "OpenAI through abcd's model gateway" };
  // Only the chosen provider is written: the others' URLs are the team's, and Codex asks none of them.
  const provider = {
    ...own,
    base_url: gatewayUrl,
    env_key: route.envKey,
    wire_api: 'responses',
    supports_websockets: false,
    requires_openai_auth: false,
  };
  return stringify({ ...kept, model_provider: route.provider, model_providers: { [route.provider]: provider } });
}

function keepProviders(providers: Record<string, unknown>, dropped: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, table] of Object.entries(providers)) {
    if (!BARE_NAME.test(id) || !isTable(table)) {
      dropped.push(`model_providers.${nameOf(id)}`);
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(table)) {
      if (key === 'query_params' && isTable(value)) {
        const params = Object.entries(value).filter(([k, v]) => QUERY_PARAMS.has(k) && typeof v === 'string');
        for (const [k] of Object.entries(value))
          if (!params.some(([p]) => p === k)) dropped.push(`model_providers.${id}.query_params.${nameOf(k)}`);
        if (params.length > 0) kept[key] = Object.fromEntries(params);
      } else if (PROVIDER_KEYS.get(key)?.(value)) kept[key] = value;
      else dropped.push(`model_providers.${id}.${nameOf(key)}`);
    }
    out[id] = kept;
  }
  return out;
}

/** A URL with no user, password or query: those are where a credential hides in a URL. */
function plainUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.username === '' && u.password === '' && u.search === '';
  } catch {
    // a single parse: the config's URL, and one that is not one is not plain
    return false;
  }
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function nameOf(key: string): string {
  return BARE_NAME.test(key) ? key : '(a quoted key)';
}
