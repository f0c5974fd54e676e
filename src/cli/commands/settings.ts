// `abcd settings`: read and sign the repository's settings.
import type { Command } from '../command.js';
import { formatDuration, formatInstant, jsonInstant, printable } from '../render.js';
import type { SettingsData } from '../../settings/settings.js';

const DURATIONS = new Set(['defaultTtl', 'takeoverDelay', 'doneRetention']);
const NAMES: Record<string, string> = {
  reservationCap: 'reservation-cap',
  defaultTtl: 'default-ttl',
  takeoverDelay: 'takeover-delay',
  doneRetention: 'done-retention',
  protectedPaths: 'protected-paths',
};

function shownValue(k: string, v: unknown): string {
  if (Array.isArray(v)) return v.length ? printable(v.join(',')) : 'none';
  return DURATIONS.has(k) ? formatDuration(v as number) : String(v);
}

export const settings: Command = {
  command: 'settings [key] [value]',
  describe: "read or set the person's settings: reservation-cap, default-ttl, takeover-delay, done-retention, requesters, protected-paths",
  refusals: [
    'git-failed',
    'conflict',
    'forge-rejected',
    'deadline',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
  ],
  usesRemote: true,
  examples: [
    ['abcd settings', 'show every setting'],
    ['abcd settings takeover-delay 90s', 'set the delay after expiry before a claim may be taken over'],
    ['abcd settings requesters a@example.com,b@example.com', 'whose signed steers and build requests count besides yours'],
    ['abcd settings protected-paths "infra/**,Makefile"', "paths a lane's change may not land without you, besides the built-in ones"],
  ],
  builder: (y) =>
    y
      .positional('key', {
        type: 'string',
        describe: 'reservation-cap | default-ttl | takeover-delay | done-retention | requesters | protected-paths',
      })
      .positional('value', {
        type: 'string',
        describe:
          'a whole number (cap), a duration (500ms, 90s, 5m, 2h), signer principals a@x,b@y (requesters) or globs a/**,b (protected-paths); none clears a list',
      }),
  async run(args, deps) {
    const input = {
      ...(args.key !== undefined ? { key: String(args.key) } : {}),
      ...(args.value !== undefined ? { value: String(args.value) } : {}),
    };
    const [{ openRepo }, { settings: run }] = await Promise.all([import('../../repo/repo.js'), import('../../settings/settings.js')]);
    const r = await run(await openRepo(deps), input);
    const entries = Object.entries(r.settings).map(([k, v]) => [NAMES[k] ?? k, shownValue(k, v)]);
    const shown = input.key ? entries.filter(([k]) => k === input.key) : entries;
    const origin = r.by
      ? `These were set by ${r.by} at ${formatInstant(r.at ?? 0)}.`
      : 'These are the defaults: nobody has set a setting on this remote yet.';
    const head = r.changed ? `set ${r.changed}${r.signed ? ' (signed)' : ''}\n` : '';
    return {
      json: {
        settings: r.settings,
        ...(r.by ? { by: r.by, at: jsonInstant(r.at ?? 0) } : {}),
        ...(r.changed ? { changed: r.changed, signed: Boolean(r.signed) } : {}),
        protected: r.trust.protected,
        signers: r.trust.signers,
        ...(r.trust.generation ? { generation: r.trust.generation } : {}),
        refused: r.ignored
          ? [
              {
                ref: r.ignored.ref,
                tip: r.ignored.tip,
                code: r.ignored.refusal.code,
                message: r.ignored.refusal.message,
                data: r.ignored.refusal.data,
              },
            ]
          : [],
      },
      text: head + shown.map(([k, v]) => `${k} = ${v}`).join('\n') + (input.key ? '' : `\n${printable(origin)}\n${trustLine(r)}`),
    };
  },
};

/** Whether the settings are the person's alone, in one line (and the ignored tip, if any). */
export function trustLine(r: Pick<SettingsData, 'trust' | 'ignored'>): string {
  const t = r.trust;
  const line = t.protected
    ? `Settings are protected: a generation counts only when signed by a key in ${t.signers}.`
    : `Settings are unprotected: anyone who can push to the remote can change them. To protect them, list your signing key in ${t.signers} (docs/settings.md says how).`;
  return r.ignored ? `${line}\nignored ${printable(r.ignored.refusal.message)}` : line;
}
