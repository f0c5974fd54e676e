// Steering tests' set-up: a scripted agent that waits for the test and copies its mailbox out,
// steers delivered to the remote in one atomic push, and readers for what landed.
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { STEER_ENVELOPE_FIRST_LINE } from '../../src/steering/envelope.js';
import { makeRemote, type BareRemote } from './remote.js';
import type { Json, Session } from './session.js';

/**
 * An agent that, until `<dir>/go` exists, copies its mailbox to `<at>/mailbox-live` (`at` is
 * `dir`, or with perItem `<dir>/<item key with - for :>`); then commits a copy of it as
 * mailbox-<ns>.txt (so it lands) and exits `exit`. Each start appends a line to `<at>/starts`,
 * its turn's kind and number to `<at>/turns`, and copies its turn's text to `<at>/prompt-<n>`.
 */
export function mailboxAgent(dir: string, o: { exit?: number; perItem?: boolean } = {}): string {
  const at = o.perItem ? `D="${dir}/$(printf %s "$ABCD_ITEM" | tr : -)"; mkdir -p "$D"; ` : `D="${dir}"; `;
  return (
    at +
    `echo "round \${ABCD_STEER_ROUND:-1} from \${ABCD_MAILBOX_FROM:-0}" >> "$D/starts"; ` +
    `echo "$ABCD_TURN_KIND $ABCD_TURN" >> "$D/turns"; cp "$ABCD_PROMPT" "$D/prompt-$ABCD_TURN"; ` +
    // Copied aside then renamed: the test never reads a half-written copy.
    `while [ ! -f ${dir}/go ]; do cp "$ABCD_MAILBOX" "$D/.copy" && mv "$D/.copy" "$D/mailbox-live"; sleep 0.1; done; ` +
    `cp "$ABCD_MAILBOX" "$D/.copy" && mv "$D/.copy" "$D/mailbox-live"; cp "$ABCD_MAILBOX" "mailbox-$(date +%s%N).txt"; ` +
    `git add -A && git commit -qm "cycle"; exit ${o.exit ?? 0}`
  );
}

export async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The envelopes in a mailbox's text, each from its first line on. */
export function envelopes(text: string): string[] {
  return text.split(new RegExp(`(?=^${escape(STEER_ENVELOPE_FIRST_LINE)}$)`, 'm')).filter((e) => e.startsWith(STEER_ENVELOPE_FIRST_LINE));
}

export async function liveEnvelopes(dir: string): Promise<string[]> {
  return envelopes(await readFile(`${dir}/mailbox-live`, 'utf8').catch(() => ''));
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Steer requests written by real `abcd steer` runs against a staging remote, then pushed to
 * `remote` in ONE atomic push: they arrive together, between two polls of any lane.
 */
export async function steerTogether(
  remote: BareRemote,
  steers: ReadonlyArray<{ session: Session; item: string; text: string }>,
): Promise<void> {
  // Main only (abcd steer checks the item is on main), no records.
  const staging = await makeRemote();
  await execa('git', ['-C', staging.dir, 'fetch', '-q', remote.url, '+refs/heads/main:refs/heads/main']);
  for (const s of steers) {
    await s.session
      .git(['remote', 'add', 'staging', staging.url])
      .catch(() => s.session.git(['remote', 'set-url', 'staging', staging.url]));
    const r = await s.session.abcd(['steer', s.item, s.text, '--remote', 'staging', '--json']);
    if (r.code !== 0) throw new Error(`abcd steer failed: ${r.stdout}${r.stderr}`);
  }
  await execa('git', ['-C', staging.dir, 'push', '-q', '--atomic', remote.url, 'refs/heads/abcd/steer/*:refs/heads/abcd/steer/*']);
}

/** A record's JSON on the remote, or undefined when the ref does not exist. */
export async function remoteRecord(remote: BareRemote, ref: string): Promise<Json> {
  const r = await execa('git', ['-C', remote.dir, 'show', `${ref}:record.json`], { reject: false });
  return r.exitCode === 0 ? JSON.parse(String(r.stdout)) : undefined;
}

export async function refsUnder(remote: BareRemote, prefix: string): Promise<string[]> {
  return [...(await remote.refs()).keys()].filter((x) => x.startsWith(prefix));
}

/** The mailbox copies the agent committed, oldest first, as landed on main. */
export async function landedMailboxes(remote: BareRemote): Promise<string[]> {
  const names = (await execa('git', ['-C', remote.dir, 'ls-tree', '--name-only', 'main'])).stdout
    .split('\n')
    .filter((f) => f.startsWith('mailbox-'))
    .sort();
  return Promise.all(names.map(async (n) => (await execa('git', ['-C', remote.dir, 'show', `main:${n}`])).stdout));
}
