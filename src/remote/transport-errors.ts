// Recognises git's messages for a remote that could not be reached or refused git's
// credentials, as opposed to a remote that answered and refused a ref.

// Failures that happen before git sends anything: a push that failed so can have changed nothing.
const BEFORE_CONNECTING = [
  /could not resolve host/i,
  /connection refused/i,
  /failed to connect/i,
  /does not appear to be a git repository/i,
  /repository .* not found/i,
  /no such file or directory/i,
];

export function failedBeforeConnecting(stderr: string): boolean {
  return BEFORE_CONNECTING.some((re) => re.test(stderr));
}

/** git's own explanation from its stderr: the first fatal/error line, else the last line. */
export function lastLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const fatal = lines.find((l) => /^(fatal|error):/.test(l));
  return (fatal ?? lines.at(-1) ?? '(git printed nothing)').replace(/\.+$/, '');
}

// git's words for a remote that answered but refused the credentials it was given (or had none).
const UNAUTHORIZED = [
  /authentication failed/i,
  /could not read (username|password)/i,
  /terminal prompts disabled/i,
  /returned error: 40[13]/i,
  /permission denied \(publickey/i,
];

export function looksUnauthorized(stderr: string): boolean {
  return UNAUTHORIZED.some((re) => re.test(stderr));
}
