// What in `.abcd/config.json` widens what agents and checks may see, read or run (ADR 0104).
// Pure: two configs in, the keys the second loosens against the first out. A lane refuses to
// run under a loosening the person did not sign or approve (settings/config-trust.ts).
import type { RepoConfig } from './config.js';

/** Every key this rule judges, in the order a refusal names them. */
export const LOOSENING_KEYS = [
  'land.sandbox',
  'lanes.sandbox',
  'lanes.bind',
  'land.env',
  'lanes.env',
  'lanes.claude.env',
  'lanes.codex.env',
  'lanes.gemini.env',
  'land.network',
  'land.network.allow',
  'lanes.network.allow',
  'land.checks',
] as const;
export type LooseningKey = (typeof LOOSENING_KEYS)[number];

/**
 * The keys `now` loosens against `trusted`: a sandbox turned to `none`; a bind or an
 * environment name or an allowed host added; a check's network turned back on; the checks changed at all (which
 * command is the stricter cannot be told, so any change counts). `checksJudged` false (there is
 * no trusted config, only the defaults) leaves the checks out: every repository sets them.
 */
export function looseningsOf(trusted: RepoConfig, now: RepoConfig, o: { checksJudged: boolean }): LooseningKey[] {
  const out: LooseningKey[] = [];
  const added = (a: readonly string[] | undefined, b: readonly string[] | undefined) => (b ?? []).some((x) => !(a ?? []).includes(x));
  if (now.land?.sandbox === 'none' && trusted.land?.sandbox !== 'none') out.push('land.sandbox');
  if (now.lanes?.sandbox === 'none' && trusted.lanes?.sandbox !== 'none') out.push('lanes.sandbox');
  if (added(trusted.lanes?.bind, now.lanes?.bind)) out.push('lanes.bind');
  if (added(trusted.land?.env, now.land?.env)) out.push('land.env');
  if (added(trusted.lanes?.env, now.lanes?.env)) out.push('lanes.env');
  if (added(trusted.lanes?.claude?.env, now.lanes?.claude?.env)) out.push('lanes.claude.env');
  if (added(trusted.lanes?.codex?.env, now.lanes?.codex?.env)) out.push('lanes.codex.env');
  if (added(trusted.lanes?.gemini?.env, now.lanes?.gemini?.env)) out.push('lanes.gemini.env');
  if (trusted.land?.network === false && now.land?.network !== false) out.push('land.network');
  if (added(checkAllowOf(trusted), checkAllowOf(now))) out.push('land.network.allow');
  if (added(trusted.lanes?.network?.allow, now.lanes?.network?.allow)) out.push('lanes.network.allow');
  if (o.checksJudged && JSON.stringify(checksOf(trusted)) !== JSON.stringify(checksOf(now))) out.push('land.checks');
  return out;
}

/** The hosts a check's egress proxy lets through (`land.network: {allow}`; none otherwise). */
function checkAllowOf(c: RepoConfig): readonly string[] | undefined {
  const n = c.land?.network;
  return typeof n === 'object' ? n.allow : undefined;
}

/** The checks as a list, so `"npm test"` and `["npm test"]` are the same checks. */
function checksOf(c: RepoConfig): string[] {
  const v = c.land?.checks;
  return (typeof v === 'string' ? [v] : (v ?? [])).map((s) => s.trim()).filter(Boolean);
}
