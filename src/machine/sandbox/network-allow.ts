// Where code in a sandbox may connect through abcd's egress proxy: a list of `host:port` and
// `*.domain:port` entries (`lanes.network.allow`, `land.network.allow`, the runtime's model
// API). A host is matched as the client named it, never by what it resolves to: an entry that
// names a host reaches that host only, and a name a wildcard matched that resolves to this
// computer's loopback or to a link-local address (a cloud's metadata service) is refused.
import { isIP } from 'node:net';

/** One parsed entry: `host` lowercase (an IPv6 address without brackets), `wildcard` for `*.domain`. */
export interface AllowEntry {
  host: string;
  port: number;
  wildcard: boolean;
}

// A DNS name: labels of letters, digits and hyphens, not starting or ending with a hyphen.
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const MAX_HOST_CHARS = 253;

/** The grammar of one entry, for the config's schema and its error message. */
export const ALLOW_ENTRY_PATTERN = /^(\*\.)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):(\d{1,5})$/;
export const ALLOW_ENTRY_HINT = 'host:port or *.domain:port, such as registry.npmjs.org:443 or *.pythonhosted.org:443';

/** Parses `host:port` or `*.domain:port`; undefined when it is neither. */
export function parseAllowEntry(text: string): AllowEntry | undefined {
  const m = ALLOW_ENTRY_PATTERN.exec(text);
  if (!m) return undefined;
  const wildcard = m[1] !== undefined;
  const host = normalHost(m[2]!);
  const port = Number(m[3]);
  if (!host || port < 1 || port > 65535) return undefined;
  // A wildcard covers names under a domain, never addresses.
  if (wildcard && isIP(host) !== 0) return undefined;
  return { host, port, wildcard };
}

/** A host as a client names it (a CONNECT line, a URL): lowercase, brackets and a final dot gone; undefined when malformed. */
export function normalHost(text: string): string | undefined {
  let h = text.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) {
    h = h.slice(1, -1);
    return isIP(h) === 6 ? h : undefined;
  }
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h.length === 0 || h.length > MAX_HOST_CHARS) return undefined;
  if (isIP(h) !== 0) return h;
  return NAME.test(h) ? h : undefined;
}

/** The endpoint (`host:port`) a URL reaches, its scheme's port when it names none; undefined for anything but http(s). */
export function urlEndpoint(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // a single parse: the setting's URL, which may be no URL at all
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.hostname}:${port}`;
}

/** The entry `host` and `port` match, if any. */
export function matchAllow(entries: readonly AllowEntry[], host: string, port: number): AllowEntry | undefined {
  return entries.find((e) => e.port === port && (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host));
}

/**
 * Whether an address a name resolved to may be reached through a wildcard entry: never this
 * computer's loopback, an unspecified address or a link-local one.
 */
export function reachableByName(address: string): boolean {
  const a = address.toLowerCase();
  if (isIP(a) === 4) return !/^(127\.|0\.|169\.254\.)/.test(a);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return reachableByName(mapped[1]!);
  return !(a === '::1' || a === '::' || /^fe[89ab]/.test(a));
}
