// `abcd status`: claims, queue, lanes and announcements at a glance.
import type { Command } from '../command.js';
import { openThenLoad } from '../open-early.js';
import { jsonInstant, sanitizeOutput } from '../render.js';
import { UsageError } from '../../core/refusals.js';
import type { GateSummary } from '../status-text.js';
import type { StatusData } from '../../status/status.js';
import type { Deps } from '../../core/deps.js';
import { machineGateContext } from '../../machine/gate/context.js';
import { durationArg } from '../args.js';

/**
 * Reads this computer's load gate, as `abcd gate --status` shows it in full. Its modules load
 * beside the records' fetch; the gate itself is read at each view.
 */
async function gateReader(deps: Deps): Promise<() => GateSummary> {
  const [{ dir, slots, gateDeps }, { readGate }] = await Promise.all([machineGateContext(deps), import('../../machine/gate/gate.js')]);
  return () => {
    const view = readGate(dir, gateDeps);
    return { dir, slots, holders: view.holders.length, waiters: view.waiters.length };
  };
}

export const status: Command = {
  command: 'status',
  describe: "everyone's claims (holder, age, expiry, stale) and refused records, in one round trip",
  refusals: ['git-failed', 'forge-rejected', 'deadline', 'record-too-new', 'unsafe-environment', 'remote-unavailable', 'record-invalid'],
  usesRemote: true,
  agentUse: 'see who holds what, the land queue and announcements',
  examples: [
    ['abcd status', 'claims, land queue, lanes, requests, announcements and refused records (NO_COLOR=1: no colour)'],
    ['abcd status --json', 'the same as one stable JSON object'],
    ['abcd status --watch 5s', 'redraw every 5 seconds until Ctrl-C (one JSON line per read with --json)'],
  ],
  builder: (y) =>
    y
      .option('watch', { type: 'string', describe: 'read again at this interval (default 2s) until stopped' })
      .option('watch-exit', { type: 'string', describe: 'with --watch: stop after this many failed reads in a row (default: never)' })
      .option('all', { type: 'boolean', default: false, describe: 'every landed item by name, and no limit on rows' }),
  async run(args, deps) {
    const watching = args.watch !== undefined;
    const exitAfter = args['watch-exit'] === undefined ? undefined : countArg(String(args['watch-exit']), '--watch-exit');
    if (exitAfter !== undefined && !watching)
      throw new UsageError('--watch-exit goes with --watch (it says when a watch gives up)', 'argument');
    // git first: the clone is opened and the records' fetch started before the status domain's
    // modules (the record schemas) load, so they load while git works. --json prints no text:
    // nothing to render, and nothing of the renderer to load. The gate's modules load then too.
    const { repo, domain } = await openThenLoad(deps, () =>
      Promise.all([import('../../status/status.js'), args.json ? undefined : import('../status-text.js'), gateReader(deps)]),
    );
    const [{ status: run }, text, gateSummary] = domain;
    const width = deps.out.isTTY ? (deps.out.columns?.() ?? 100) : undefined;
    const height = deps.out.isTTY ? deps.out.rows?.() : undefined;
    const fit = text && width ? await text.fitTo(width) : undefined;
    const style = {
      colour: deps.out.isTTY && !deps.env.NO_COLOR,
      all: args.all === true,
      verbose: args.verbose === true,
      // Watching, the warnings are said once, in the footer: not in every frame.
      noWarnings: watching,
      ...(fit ? { fit, width } : {}),
      // The header, and below the view the shell's prompt (or the watch's footer), take one row each.
      // Watching, the warning line sits above the footer.
      ...(height ? { rows: Math.max(MIN_BODY_ROWS, height - 2 - (watching ? 1 : 0)) } : {}),
    };
    const once = async () => {
      const s = await run(repo);
      const gate = gateSummary();
      const json = toJson(s, gate);
      if (!text) return { json, readAt: s.readAt, signature: '', lines: [], warnings: [] };
      const body = text.statusBody(s, gate, style);
      const lines = sanitizeOutput(`${text.statusHeader(s, style, !watching)}\n${body}`, deps.out.isTTY).split('\n');
      const warnings = text.statusWarnings(s, width).map((w) => sanitizeOutput(w, deps.out.isTTY));
      return { json, readAt: s.readAt, signature: text.statusSignature(s, gate), lines, warnings };
    };
    if (!watching) {
      const r = await once();
      return { json: r.json, text: r.lines.join('\n') };
    }
    // A display loop, not a wait: it ends when the person stops it (SIGINT/SIGTERM).
    const every = Math.max(MIN_WATCH_MS, durationArg(args.watch === '' ? '2s' : String(args.watch), '--watch', 2000));
    const { watchStatus } = await import('../status-watch.js');
    const json = await watchStatus(deps, once, {
      everyMs: every,
      json: args.json === true,
      ...(exitAfter !== undefined ? { exitAfter } : {}),
      cut: fit ?? ((line) => line),
    });
    return { json, text: '', printed: true };
  },
};

// A terminal so short that even the attention sections would not fit still gets this many.
const MIN_BODY_ROWS = 5;

/** A count of at least 1, as --watch-exit takes it. */
function countArg(v: string, flag: string): number {
  if (!/^[1-9]\d{0,5}$/.test(v))
    throw new UsageError(`${flag} takes a whole number of failed reads, at least 1 (got "${v}")`, 'count', { [flag]: v });
  return Number(v);
}

// Watching faster than this only loads the remote.
const MIN_WATCH_MS = 500;

function toJson(s: StatusData, gateJson: GateSummary): Record<string, unknown> {
  return {
    remote: s.remote,
    readAt: jsonInstant(s.readAt),
    session: s.session,
    claims: s.claims.map(({ tip, ...c }) => ({
      ...c,
      claimTip: tip,
      at: jsonInstant(c.at),
      takenAt: jsonInstant(c.takenAt),
      expiresAt: jsonInstant(c.expiresAt),
      takeableAt: c.takeableAt !== undefined ? jsonInstant(c.takeableAt) : null,
      note: c.note ?? null,
      branch: c.branch ?? null,
      head: c.head ?? null,
      landed: c.landed ?? null,
      review: c.review ?? null,
    })),
    queue: s.queue.map((q) => ({ ...q, since: jsonInstant(q.since), priority: q.priority ?? 'normal', skipped: q.skipped ?? null })),
    announcements: s.announcements.map((a) => ({ ...a, at: jsonInstant(a.at), expiresAt: jsonInstant(a.expiresAt) })),
    gate: gateJson,
    settings: s.settings,
    settingsTrust: s.settingsTrust,
    requestTrust: s.requestTrust,
    refused: s.refused,
    unknown: s.unknown,
    pruned: s.pruned,
    lanes: s.lanes.map((l) => ({
      ...l,
      startedAt: jsonInstant(l.startedAt),
      at: jsonInstant(l.at),
      end: l.end ?? null,
      lost: l.lost ? { why: l.lost.why, lastSeenAt: jsonInstant(l.lost.lastSeenAt) } : null,
    })),
    failures: s.failures.map((f) => ({
      ...f,
      at: jsonInstant(f.at),
      exitCode: f.exitCode ?? null,
      lastLine: f.lastLine ?? null,
      check: f.check ?? null,
      conflictFiles: f.conflictFiles ?? null,
      branch: f.branch ?? null,
    })),
    running: s.running.map((r) => ({ ...r, phase: r.phase ?? null, phaseForMs: r.phaseForMs ?? null })),
    pending: s.pending.map((p) => ({ ...p, at: jsonInstant(p.at), note: p.note ?? null })),
    steers: s.steers.map((x) => ({ ...x, at: jsonInstant(x.at), heldBy: x.heldBy ?? null })),
    receipts: s.receipts.map((x) => ({ ...x, at: jsonInstant(x.at) })),
    clockSkew: s.clockSkew ?? null,
  };
}
