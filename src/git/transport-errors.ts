// Recognises git's messages for a remote that could not be reached, refused git's
// credentials, or could not store what it was sent, as opposed to a remote that answered and
// refused a ref.

// Failures where no byte of a push can have reached the remote: the name did not resolve, the
// first connection was refused, the repository is not there, the ref advertisement was refused.
const NOTHING_SENT = [
  /could not resolve host/i,
  /unable to access '[^']*': (failed to connect|could not connect|couldn't connect|connection refused|could not resolve)/i,
  /ssh: connect to host .*: (connection refused|no route to host|network is unreachable|connection timed out)/i,
  /does not appear to be a git repository/i,
  /repository .* not found/i,
  /no such file or directory/i,
];

// Signs that the push got past its first request: curl re-connecting after the server closed a
// connection that carried the push prints "Failed to connect" too, after the body was sent.
const PAST_THE_FIRST_REQUEST = [
  /RPC failed/i,
  /remote end hung up/i,
  /unexpected disconnect/i,
  /broken pipe/i,
  /connection reset/i,
  /sideband/i,
  /send-pack:/i,
];

/**
 * True only when git failed before any byte of the push can have left: then the push changed
 * nothing without a re-read. Anything else (a cut connection, a timeout, a retry that could not
 * reconnect) leaves the outcome open until the remote is read again.
 */
export function failedBeforeSending(stderr: string): boolean {
  if (PAST_THE_FIRST_REQUEST.some((re) => re.test(stderr))) return false;
  return NOTHING_SENT.some((re) => re.test(stderr)) || looksUnauthorized(stderr);
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

// The remote took the push but could not write it down: its object store or refs are not
// writable by the server process (permissions, a read-only or full disk). A lease conflict
// ("cannot lock ref ... but expected") is a race, not this.
const CANNOT_STORE = [
  /unpack(er error| failed)/i,
  /unable to create temporary object directory/i,
  /insufficient permission for adding an object/i,
  /unable to migrate objects to permanent storage/i,
  /read-only file system/i,
  /no space left on device/i,
  /unable to create '[^']*\.lock': permission denied/i,
];

/** The remote's own words when it could not store a push, else undefined. */
export function cannotStore(stderr: string, porcelainReasons: readonly string[]): string | undefined {
  const lines = stderr.split('\n').map((l) => l.trim());
  const said = lines.find((l) => CANNOT_STORE.some((re) => re.test(l)) && !/unpacker error/i.test(l));
  if (said) return said.replace(/^(error|fatal|remote):\s*/i, '').replace(/\.+$/, '');
  const reason = porcelainReasons.find((r) => CANNOT_STORE.some((re) => re.test(r)));
  return reason ? `the remote answered "${reason}"` : undefined;
}

// git's words for an object of this clone it could not read while packing a push (its own
// lines, never the remote's "remote: ..."): the clone's store is damaged, and whatever the
// remote said next ("unpack failed: eof before pack header") is about the pack it never got.
const LOCAL_OBJECT_UNREADABLE = [
  /^(fatal|error): (loose|packed) object [0-9a-f]{40,64} \(stored in .*\) is corrupt/i,
  /^(fatal|error): unable to (read|unpack) [0-9a-f]{40,64}/i,
  /^fatal: bad object [0-9a-f]{40,64}/i,
];

/** Whether a failed push stopped at an object this clone could not read. */
export function localObjectUnreadable(stderr: string): boolean {
  return stderr.split('\n').some((l) => LOCAL_OBJECT_UNREADABLE.some((re) => re.test(l.trim())));
}
