// The secrets this abcd process holds by value: the model key it read from its environment,
// the forge tokens there, the App tokens and JWTs it minted. Unlike a shape, an exact value is
// never blanked by mistake and is found whatever it looks like, so text abcd keeps is scrubbed
// of each (and of its common encodings), and a change that carries one is refused at land
// (ADR 0108). A process-wide list, as CI runners keep their masks: every place that writes text
// out reaches it without a value being threaded through each call.

/** A value shorter than this is no credential anyone would hold, and blanking it would blank words. */
export const MIN_KNOWN_SECRET_CHARS = 12;

// The variables whose values are credentials abcd may hold: model keys and forge tokens.
export const SECRET_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
] as const;

export interface KnownSecret {
  /** What it is, for a refusal (`GH_TOKEN`, "the App token"): never the value. */
  name: string;
  value: string;
}

const known = new Map<string, string>();
/** One form of a known secret, and the pattern that finds it also where line breaks split it. */
export interface SecretForm {
  value: string;
  name: string;
  form: string;
  split: RegExp;
}

let forms: SecretForm[] | undefined;
let starts: { set: Set<string>; longest: number } | undefined;

/** Adds a value to the list (a short or blank one is ignored). */
export function rememberSecret(name: string, value: string | undefined): void {
  const v = value?.trim();
  if (!v || v.length < MIN_KNOWN_SECRET_CHARS || known.has(v)) return;
  known.set(v, name);
  forms = undefined;
  starts = undefined;
}

/** Remembers the values of SECRET_VARIABLES in `env`. */
export function rememberSecretsOf(env: Readonly<Record<string, string | undefined>>): void {
  for (const name of SECRET_VARIABLES) rememberSecret(name, env[name]);
}

export function knownSecrets(): KnownSecret[] {
  return [...known].map(([value, name]) => ({ name, value }));
}

/** Forgets every value (tests). */
export function forgetSecrets(): void {
  known.clear();
  forms = undefined;
  starts = undefined;
}

/**
 * Each known value as text may carry it: as it is, percent-encoded, in hex, and in base64 and
 * base64url at each of the three alignments a value can take inside a longer encoded text (the
 * characters its neighbours share are left out). Longest first, so a longer form wins.
 */
export function secretForms(): readonly SecretForm[] {
  if (forms) return forms;
  const out = new Map<string, SecretForm>();
  for (const [value, name] of known) {
    const add = (form: string) => {
      if (form.length >= MIN_KNOWN_SECRET_CHARS && !out.has(form)) out.set(form, { value, name, form, split: splitPattern(form) });
    };
    add(value);
    add(encodeURIComponent(value));
    add(Buffer.from(value).toString('hex'));
    for (let pad = 0; pad < 3; pad++) {
      const b64 = Buffer.concat([Buffer.alloc(pad), Buffer.from(value)]).toString('base64');
      // Characters that also encode the neighbours are dropped at both ends.
      const start = pad === 0 ? 0 : Math.ceil((pad * 8) / 6);
      const end = Math.floor(((pad + Buffer.byteLength(value)) * 8) / 6);
      const core = b64.slice(start, end);
      add(core);
      add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  forms = [...out.values()].sort((a, b) => b.form.length - a.form.length);
  return forms;
}

/** `form` with an optional line break between any two of its characters. */
function splitPattern(form: string): RegExp {
  return new RegExp([...form].map((c) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join(String.raw`(?:\r?\n)?`), 'g');
}

/** Whether `text` ends in the first `min` or more characters (not all) of a known form. */
export function endsInSecretStart(text: string, min: number): boolean {
  if (!starts) {
    const set = new Set<string>();
    let longest = 0;
    for (const f of secretForms()) {
      for (let k = min; k < f.form.length; k++) set.add(f.form.slice(0, k));
      longest = Math.max(longest, f.form.length - 1);
    }
    starts = { set, longest };
  }
  for (let k = min; k <= Math.min(starts.longest, text.length); k++) if (starts.set.has(text.slice(-k))) return true;
  return false;
}
