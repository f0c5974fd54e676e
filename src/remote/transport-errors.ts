// Recognises git's messages for a remote that could not be reached, as opposed to a
// remote that answered and refused.
const UNREACHABLE = [
  /unable to access/i,
  /could not read from remote repository/i,
  /does not appear to be a git repository/i,
  /connection refused/i,
  /could not resolve host/i,
  /the remote end hung up/i,
  /connection (timed out|reset)/i,
  /failed to connect/i,
  /no such file or directory/i,
  /repository .* not found/i,
  /protocol error/i,
  /early eof/i,
  /http 5\d\d|returned error: 5\d\d/i,
];

export function looksUnreachable(stderr: string): boolean {
  return UNREACHABLE.some((re) => re.test(stderr));
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
