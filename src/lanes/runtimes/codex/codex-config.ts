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
  { ok: true; toml: string; model?: string; baseUrl?: string; dropped: string[] } | { ok: false; reason: string };

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
  return { ok: true, toml: stringify(out), ...(model ? { model } : {}), ...(baseUrl ? { baseUrl } : {}), dropped };
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
    return false;
  }
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function nameOf(key: string): string {
  return BARE_NAME.test(key) ? key : '(a quoted key)';
}
