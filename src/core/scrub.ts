// Text abcd keeps where others read it (a lane's result record on the remote, its answer) may
// hold what an agent or a check printed, and that may hold a credential it came across: a
// GitHub token, a model provider's key, a private key. Such text passes through here first.
// It matches by shape, so it fails safe in one direction only: a token of an unknown shape
// passes; a word that merely looks like one is blanked.

/** What stands where a secret was: its kind stays readable, its value does not. */
export const SCRUBBED = '[scrubbed]';

// GitHub's token prefixes (installation, user-to-server, OAuth, personal, refresh) and
// fine-grained personal tokens; a model provider's `sk-...` key (OpenAI, Anthropic's sk-ant-).
// A prefix must start a word: "risk-free" holds no key.
const TOKENS = /(?<![A-Za-z0-9_])(gh[pousr]_|github_pat_|sk-)[A-Za-z0-9_-]{12,}/g;
// A PEM block whole, or the part of one a tail cut (its end without its start, or the reverse).
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]{1,60}-----[\s\S]*?-----END [A-Z0-9 ]{1,60}-----/g;
const PEM_OPEN = /-----BEGIN [A-Z0-9 ]{1,60}-----[\s\S]*$/;
const PEM_CLOSED = /^[\s\S]*?-----END [A-Z0-9 ]{1,60}-----/;

/** The text with every token-shaped word and every PEM block (or cut part of one) replaced. */
export function scrubSecrets(text: string): string {
  return text
    .replace(PEM_BLOCK, `-----PEM block ${SCRUBBED}-----`)
    .replace(PEM_CLOSED, `-----PEM block ${SCRUBBED}-----`)
    .replace(PEM_OPEN, `-----PEM block ${SCRUBBED}-----`)
    .replace(TOKENS, (_m, prefix: string) => `${prefix}${SCRUBBED}`);
}
