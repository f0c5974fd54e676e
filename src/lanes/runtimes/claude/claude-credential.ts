// Which of Claude Code's credentials abcd's model gateway carries, and what the agent is given in
// their place. Claude Code takes its credential from one of three variables (measured on 2.1.197
// against a server that records headers): `ANTHROPIC_API_KEY` as `x-api-key`;
// `ANTHROPIC_AUTH_TOKEN` as `Authorization: Bearer` (with both set it sends both);
// `CLAUDE_CODE_OAUTH_TOKEN` (a `claude setup-token` subscription token) as `Authorization: Bearer`
// with `oauth-2025-04-20` among its `anthropic-beta` flags, and only when neither of the others is
// set. The agent gets a placeholder in each variable the person set, so Claude Code asks exactly
// as it would with the real one; the gateway puts the real one in its header.
import type { Env } from '../../../core/deps.js';
import type { GatewayCredential } from '../../../machine/gateway/model-gateway.js';
import { PLACEHOLDER_KEY } from '../gateway-link.js';

/** The `anthropic-beta` flag the Messages API wants with an OAuth token, as Claude Code sends it. */
export const OAUTH_BETA = 'oauth-2025-04-20';

export interface ClaudeCredential {
  credential: GatewayCredential;
  /** The variables the agent gets instead, each holding the placeholder. */
  agentEnv: Record<string, string>;
}

/** The credential in abcd's own environment the gateway carries for Claude Code, or undefined when there is none. */
export function claudeCredential(env: Env): ClaudeCredential | undefined {
  const key = env.ANTHROPIC_API_KEY;
  const token = env.ANTHROPIC_AUTH_TOKEN;
  if (key || token) {
    return {
      credential: {
        headers: { ...(key ? { 'x-api-key': key } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      agentEnv: {
        ...(key ? { ANTHROPIC_API_KEY: PLACEHOLDER_KEY } : {}),
        ...(token ? { ANTHROPIC_AUTH_TOKEN: PLACEHOLDER_KEY } : {}),
      },
    };
  }
  const oauth = env.CLAUDE_CODE_OAUTH_TOKEN;
  if (!oauth) return undefined;
  return {
    credential: { headers: { authorization: `Bearer ${oauth}` }, flags: { 'anthropic-beta': [OAUTH_BETA] } },
    agentEnv: { CLAUDE_CODE_OAUTH_TOKEN: PLACEHOLDER_KEY },
  };
}
