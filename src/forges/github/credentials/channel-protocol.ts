// What travels over the channel's socket, in git's own credential format (`key=value` lines,
// a blank line or the end closing them): the helper forwards git's request, the abcd host
// process answers `username`/`password` or nothing. Used by both ends.
import { connect } from 'node:net';

export type Attributes = Map<string, string>;

// git's credential requests are a few short lines; anything longer is not git talking.
export const MAX_MESSAGE_BYTES = 64 * 1024;
// The host answers from memory; a socket silent for this long belongs to a stuck or foreign peer.
export const CHANNEL_IO_TIMEOUT_MS = 5_000;

/** Parses `key=value` lines up to the first blank line; lines without `=` are skipped. */
export function parseAttributes(text: string): Attributes {
  const attrs: Attributes = new Map();
  for (const line of text.split('\n')) {
    if (line === '') break;
    const eq = line.indexOf('=');
    if (eq > 0) attrs.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return attrs;
}

/** `key=value` lines; a value holding a newline or NUL would break git's parser, so it throws. */
export function formatAttributes(attrs: Iterable<readonly [string, string]>): string {
  let out = '';
  for (const [key, value] of attrs) {
    if (/[\n\0]/.test(key + value)) throw new Error(`credential attribute ${key} holds a newline or NUL`);
    out += `${key}=${value}\n`;
  }
  return out;
}

/** Whether the text so far already holds a whole message (ends in a blank line). */
export function isComplete(text: string): boolean {
  return text === '\n' || text.includes('\n\n');
}

export interface ChannelCredential {
  username: string;
  password: string;
}

/**
 * The helper's end: sends git's request to the socket and returns the answer, or null when the
 * channel is missing, closed, silent or declines. Fails closed: null means git gets nothing and
 * fails authentication on its own; nothing here prompts.
 */
export function requestCredential(socketPath: string, request: Attributes): Promise<ChannelCredential | null> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(socketPath);
    const finish = (value: ChannelCredential | null): void => {
      socket.destroy();
      resolve(value);
    };
    socket.setEncoding('utf8');
    socket.setTimeout(CHANNEL_IO_TIMEOUT_MS, () => finish(null));
    socket.on('error', () => finish(null));
    socket.on('connect', () => {
      const forwarded = [...request].filter(([key]) => key === 'protocol' || key === 'host');
      socket.end(`${formatAttributes(forwarded)}\n`);
    });
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.length > MAX_MESSAGE_BYTES) finish(null);
    });
    socket.on('end', () => {
      const attrs = parseAttributes(answer);
      const username = attrs.get('username');
      const password = attrs.get('password');
      finish(username !== undefined && password ? { username, password } : null);
    });
  });
}
