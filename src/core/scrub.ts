// Text abcd keeps where others read it (a lane's result record on the remote, its answer, the
// run's log) may hold what an agent or a check printed, and that may hold a credential it came
// across: a GitHub token, a model provider's key, a cloud key, a bearer JWT, a private key.
// Such text passes through here first. Terminal codes are removed before anything is matched
// (an escape inside a token would split it), a token may run on over a line break, and base64
// that decodes to a secret is blanked whole. By shape it fails safe in one direction only: a
// token of an unknown shape passes; a word that merely looks like one is blanked. By value
// (known-secrets.ts) nothing abcd holds passes, in any of its common encodings.
import { secretForms } from './known-secrets.js';

/** What stands where a secret was: its kind stays readable, its value does not. */
export const SCRUBBED = '[scrubbed]';

// A terminal's colour and cursor codes (CSI and OSC sequences, and lone escapes).
// eslint-disable-next-line no-control-regex -- escape sequences are what this removes
export const TERMINAL_CODES = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?|\u001b[@-_]?/g;

// GitHub's token prefixes (installation, user-to-server, OAuth, personal, refresh) and
// fine-grained personal tokens; a model provider's `sk-...` key (OpenAI, Anthropic's sk-ant-).
// A prefix must start a word: "risk-free" holds no key. A token may go on over line breaks (a
// wrapped or split print) into a next line that starts with what reads as the rest of a random
// token (a capital or a digit within it), never a plain word or a `-----` line.
const TOKENS =
  /(?<![A-Za-z0-9_])(gh[pousr]_|github_pat_|sk-)([A-Za-z0-9_-]*(?:\r?\n(?=[A-Za-z0-9][A-Za-z0-9_-]*[0-9A-Z])[A-Za-z0-9_-]+)*)/g;
// Characters after the prefix for a token: "sk-short" is a word.
const MIN_TOKEN_BODY = 12;
// A JSON Web Token (a GitHub App's, an OAuth access token): three base64url parts, the first
// two JSON objects ("eyJ").
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g;
// Whatever follows "Bearer" in a header or a printed request.
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/-]{12,}=*/gi;
// An AWS access key id, and a secret access key: 40 base64 characters standing alone, mixing
// cases and digits (a git object id is lower-case hex, so none matches).
const AWS_KEY_ID = /(?<![A-Z0-9])(AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g;
const AWS_SECRET = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
// A base64 run long enough to hide a token, possibly wrapped over lines (base64 wraps at 76).
const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]|\r?\n(?=[A-Za-z0-9+/])){20,}={0,2}/g;
// A PEM block whole, or the part of one a tail cut (its end without its start, or the reverse).
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]{1,60}-----[\s\S]*?-----END [A-Z0-9 ]{1,60}-----/g;
const PEM_OPEN = /-----BEGIN [A-Z0-9 ]{1,60}-----[\s\S]*$/;
const PEM_CLOSED = /^[\s\S]*?-----END [A-Z0-9 ]{1,60}-----/;

/** The text without terminal codes, every known secret and every secret-shaped word replaced. */
export function scrubSecrets(text: string): string {
  return scrubShapes(scrubKnown(text.replace(TERMINAL_CODES, '')));
}

function scrubShapes(text: string): string {
  return text
    .replace(PEM_BLOCK, `-----PEM block ${SCRUBBED}-----`)
    .replace(PEM_CLOSED, `-----PEM block ${SCRUBBED}-----`)
    .replace(PEM_OPEN, `-----PEM block ${SCRUBBED}-----`)
    .replace(TOKENS, (m, prefix: string, body: string) => (body.replace(/\s/g, '').length >= MIN_TOKEN_BODY ? `${prefix}${SCRUBBED}` : m))
    .replace(BEARER, (_m, bearer: string) => `${bearer}${SCRUBBED}`)
    .replace(JWT, `jwt ${SCRUBBED}`)
    .replace(AWS_KEY_ID, (_m, prefix: string) => `${prefix}${SCRUBBED}`)
    .replace(AWS_SECRET, (m) => (mixed(m) ? `aws-secret ${SCRUBBED}` : m))
    .replace(BASE64_RUN, (m) => (hidesSecret(m) ? `base64 ${SCRUBBED}` : m));
}

/** Upper case, lower case and a digit or a sign: a key, not a word or a hex id. */
function mixed(s: string): boolean {
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9/+]/.test(s);
}

/** Whether a base64 run decodes to text holding a secret's shape or a known value. */
function hidesSecret(run: string): boolean {
  const decoded = Buffer.from(run.replace(/\s/g, ''), 'base64').toString('latin1');
  return scrubShapes(decoded) !== decoded || scrubKnown(decoded) !== decoded;
}

/** Each known secret, in each of its forms, also where a line break splits it, blanked. */
function scrubKnown(text: string): string {
  let out = text;
  const forms = secretForms();
  if (!forms.length) return out;
  // Without its line breaks the text holds a form whole wherever breaks split it: a cheap test first.
  const flat = out.replace(/\r?\n/g, '');
  for (const f of forms) if (flat.includes(f.form)) out = out.replace(f.split, `${f.name} ${SCRUBBED}`);
  return out;
}

/** Where a known secret's exact value (not an encoding) is in `text`: its name, or undefined. */
export function knownSecretIn(text: string): string | undefined {
  return secretForms().find((f) => f.form === f.value && text.includes(f.value))?.name;
}
