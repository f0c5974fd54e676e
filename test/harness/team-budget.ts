// The team budget's test set-up: the person with a signing key and an allowed-signers list, the
// ledger read straight from the bare remote, and agents that report a fixed usage.
import { execa } from 'execa';
import type { BareRemote } from './remote.js';
import { laneSession } from './lanes.js';
import type { Json, Session } from './session.js';
import { makeKey, useSigningKey, writeSigners } from './signing.js';
import { tempDir } from './git-env.js';

export const LEDGER_REF = 'refs/heads/abcd/budget/ledger';
export const LIMIT_REF = 'refs/heads/abcd/budget/limit';

/** The person: signs with a fresh ssh key that their own allowed-signers list names. */
export async function signingPerson(remote: BareRemote, name = 'owner'): Promise<Session> {
  const s = await laneSession(remote, name);
  const key = await makeKey(await tempDir('keys'), `${name}-key`);
  await useSigningKey(s, key.path);
  await writeSigners(s, [`${name}@example.com ${key.pub}`]);
  return s;
}

/** The ledger record on the remote, or undefined when nobody wrote it. */
export async function remoteLedger(remote: BareRemote): Promise<Json | undefined> {
  const r = await execa('git', ['-C', remote.dir, 'show', `${LEDGER_REF}:record.json`], { reject: false });
  return r.exitCode === 0 ? (JSON.parse(String(r.stdout)) as Json) : undefined;
}

/** An agent that reports `tokens` in ABCD_USAGE, then commits a file named after its item. */
export function spendingAgent(tokens: number, before = ''): string {
  return (
    `${before}echo '{"tokens":${tokens}}' >> "$ABCD_USAGE"; ` +
    'f="out-$(printf %s "$ABCD_ITEM" | tr : -).txt"; echo "built $ABCD_ITEM" > "$f"; git add "$f" && git commit -qm "agent: $ABCD_ITEM"'
  );
}
