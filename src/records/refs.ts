// Every ref name abcd reads or writes is derived here, and nowhere else.
import { shortItem, type ItemKey } from './item.js';

export const RECORD_PREFIX = 'refs/heads/abcd/';
/** The file inside each record commit's tree. */
export const RECORD_FILE = 'record.json';

export type RecordKind =
  'claim' | 'settings' | 'queue' | 'pending' | 'lane' | 'steer' | 'receipt' | 'announce' | 'team-budget' | 'budget-ledger';

export function claimRef(item: ItemKey): string {
  return `${RECORD_PREFIX}claims/${item.source}/${item.kind}/${item.id}`;
}

export function queueRef(item: ItemKey): string {
  return `${RECORD_PREFIX}queue/${item.source}/${item.kind}/${item.id}`;
}

/** The item's single pending slot: one coalesced follow-up request (preserve and coalesce). */
export function pendingRef(item: ItemKey): string {
  return `${RECORD_PREFIX}pending/${item.source}/${item.kind}/${item.id}`;
}

/** One lane run's result (`abcd build`, `abcd drain`). */
export function laneRef(runId: string): string {
  return `${RECORD_PREFIX}lanes/${runId}`;
}

/** One steer request to the lane working on the item (`abcd steer`). */
export function steerRef(item: ItemKey, id: string): string {
  return `${RECORD_PREFIX}steer/${item.source}/${item.kind}/${item.id}/${id}`;
}

/** The item's latest receipt: what a lane absorbed in flight (its chain is the history). */
export function receiptRef(item: ItemKey): string {
  return `${RECORD_PREFIX}receipts/${item.source}/${item.kind}/${item.id}`;
}

export const SETTINGS_REF = `${RECORD_PREFIX}settings`;

/** The team's model budget limit, signed by the person (ADR 0112). */
export const TEAM_BUDGET_REF = `${RECORD_PREFIX}budget/limit`;

/** The team budget's ledger: what every computer's lanes spent and hold reserved (ADR 0112). */
export const BUDGET_LEDGER_REF = `${RECORD_PREFIX}budget/ledger`;

/** A session's announcement; `key` from announceKey() in records/announce.ts. */
export function announceRef(key: string): string {
  return `${RECORD_PREFIX}announce/${key}`;
}

/** Where a remote's records are mirrored in the local repository. */
export function cachePrefix(remote: string): string {
  return `refs/abcd-cache/${remote}/`;
}

export function fromCacheRef(remote: string, cacheRef: string): string {
  return RECORD_PREFIX + cacheRef.slice(cachePrefix(remote).length);
}

/** What a record ref holds, or undefined for a ref outside the layout. */
export function classifyRef(ref: string): { kind: RecordKind; item?: ItemKey; id?: string } | undefined {
  if (!ref.startsWith(RECORD_PREFIX)) return undefined;
  const parts = ref.slice(RECORD_PREFIX.length).split('/');
  if (parts.length === 1 && parts[0] === 'settings') return { kind: 'settings' };
  if (parts.length === 2 && parts[0] === 'announce' && parts[1]) return { kind: 'announce' };
  if (parts.length === 2 && parts[0] === 'budget' && parts[1] === 'limit') return { kind: 'team-budget' };
  if (parts.length === 2 && parts[0] === 'budget' && parts[1] === 'ledger') return { kind: 'budget-ledger' };
  const [head, source, kind, id] = parts;
  if (parts.length === 4 && source && kind && id && (head === 'claims' || head === 'queue' || head === 'pending')) {
    return { kind: head === 'claims' ? 'claim' : head, item: { source, kind, id } };
  }
  if (parts.length === 2 && head === 'lanes' && source) return { kind: 'lane' };
  if (parts.length === 4 && head === 'receipts' && source && kind && id) return { kind: 'receipt', item: { source, kind, id } };
  if (parts.length === 5 && head === 'steer' && source && kind && id && parts[4])
    return { kind: 'steer', item: { source, kind, id }, id: parts[4] };
  return undefined;
}

export function itemOfRef(ref: string): string | undefined {
  const c = classifyRef(ref);
  return c?.item ? shortItem(c.item) : undefined;
}

/**
 * git check-ref-format's rules, checked in-process (no process per name). Record refs
 * from the remote pass through this before they are used in any command line.
 */
export function isRefSafe(ref: string): boolean {
  if (ref.length === 0 || ref.length > 1024) return false;
  if (ref.startsWith('-') || ref.endsWith('/') || ref.endsWith('.')) return false;
  if (ref.includes('..') || ref.includes('@{') || ref.includes('//')) return false;
  // eslint-disable-next-line no-control-regex -- git refuses control characters in a ref name, and so does this
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref)) return false;
  if (ref === '@') return false;
  return ref.split('/').every((c) => c.length > 0 && !c.startsWith('.') && !c.endsWith('.lock'));
}
