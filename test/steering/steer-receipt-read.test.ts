// Reading the latest receipt fails open in every direction: only a readable receipt
// for this item that lists this very request lets a pending run skip. Pure: records decoded
// from blobs as the snapshot read decodes them.
import { describe, expect, it } from 'vitest';
import { receiptCovers } from '../../src/lanes/guards/receipts.js';
import { encodeReceipt, type ReceiptRecord } from '../../src/records/receipt.js';
import { buildSnapshot } from '../../src/repo/snapshot.js';
import { unprotectedSettings } from '../../src/repo/settings-trust/trust.js';

const ITEM = { source: 'local', kind: 'item', id: 'page' };
const REF = 'refs/heads/abcd/receipts/local/item/page';
const TIP = 'a'.repeat(40);
const REQUEST = { kind: 'pending' as const, id: 'b'.repeat(40) };
const RECEIPT: ReceiptRecord = {
  abcd: 'receipt',
  v: 1,
  item: 'local:item:page',
  runId: 'r1',
  holder: { person: 'me@example.com', host: 'h', session: 's' },
  gen: 3,
  at: 1_000,
  head: 'c'.repeat(40),
  consumed: [REQUEST, { kind: 'steer', id: '20261130T180000Z-abcdef12' }],
};

async function covers(blob: string | undefined, ref = REF): Promise<boolean> {
  const raws = blob === undefined ? [] : [{ ref, tip: TIP, blob: Buffer.from(blob) }];
  const snap = await buildSnapshot(raws, { readAt: 0, judge: unprotectedSettings('') });
  return receiptCovers(snap, ITEM, REQUEST);
}

describe('reading the latest receipt', () => {
  it('skips only for a readable receipt of this item that lists the request', async () => {
    expect(await covers(encodeReceipt(RECEIPT))).toBe(true);
  });

  it.each([
    ['no receipt', undefined],
    ['not JSON', '{"abcd": "receipt", "v": 1, "consumed": ['],
    ['a newer version', JSON.stringify({ ...RECEIPT, v: 2 })],
    ['a wrong shape', JSON.stringify({ ...RECEIPT, consumed: 'all' })],
    ['another item in the body', encodeReceipt({ ...RECEIPT, item: 'local:item:other' })],
    ['the request not listed', encodeReceipt({ ...RECEIPT, consumed: [{ kind: 'pending', id: 'd'.repeat(40) }] })],
    ['the same id as another kind', encodeReceipt({ ...RECEIPT, consumed: [{ kind: 'steer', id: REQUEST.id }] })],
  ])('does the work with %s', async (_what, blob) => {
    expect(await covers(blob)).toBe(false);
  });

  it("another item's receipt does not cover this one", async () => {
    expect(await covers(encodeReceipt(RECEIPT), 'refs/heads/abcd/receipts/local/item/other')).toBe(false);
  });
});
