// The checks that need every item at once: a dependency on an item that has no file, and a
// dependency cycle. Each refuses the items it concerns; the others still read.
import { formatItem } from '../records/item.js';
import { ItemInvalid } from '../core/refusals.js';
import type { ItemDoc, ItemRefused } from './source.js';

/**
 * Splits parsed items into those that stand and those refused for a missing dependency or a
 * cycle. `present` holds the keys of every item file, readable or not: a dependency on a
 * malformed file is not missing, it only blocks until that file is fixed and done.
 */
export function checkItemGraph(docs: readonly ItemDoc[], present: ReadonlySet<string>): { items: ItemDoc[]; refused: ItemRefused[] } {
  const refused: ItemRefused[] = [];
  const kept: ItemDoc[] = [];
  for (const d of docs) {
    const missing = d.dependsOn.filter((k) => !present.has(k));
    if (missing.length === 0) kept.push(d);
    else
      refused.push(
        refuseItem(
          d,
          'missing-dependency',
          `depends_on names ${missing.join(', ')}, which has no item file on main; add it or drop the dependency`,
          { missing },
        ),
      );
  }
  const cycles = findCycles(kept);
  return {
    items: kept.filter((d) => !cycles.has(formatItem(d.key))),
    refused: [
      ...refused,
      ...kept
        .filter((d) => cycles.has(formatItem(d.key)))
        .map((d) => {
          const cycle = cycles.get(formatItem(d.key))!;
          return refuseItem(d, 'cycle', `it is part of a dependency cycle among ${cycle.join(', ')}; none of them could ever start`, {
            cycle,
          });
        }),
    ],
  };
}

function refuseItem(d: ItemDoc, reason: string, what: string, extra: Record<string, unknown>): ItemRefused {
  return {
    path: d.path,
    key: d.key,
    refusal: new ItemInvalid(`${d.path}: ${what}; fix it on main.`, { path: d.path, key: formatItem(d.key), reason, ...extra }),
  };
}

/**
 * Every item on a cycle, mapped to its strongly connected component (Tarjan's algorithm,
 * iterative: hostile input may chain thousands of items). A component of one item is a
 * cycle only when the item depends on itself.
 */
function findCycles(docs: readonly ItemDoc[]): Map<string, string[]> {
  const deps = new Map(docs.map((d) => [formatItem(d.key), d.dependsOn] as const));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const result = new Map<string, string[]>();
  let counter = 0;
  for (const root of deps.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ key: string; next: number }> = [{ key: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const out = deps.get(top.key)!;
      if (top.next < out.length) {
        const dep = out[top.next++]!;
        if (!deps.has(dep)) continue;
        if (!index.has(dep)) {
          index.set(dep, counter);
          low.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          work.push({ key: dep, next: 0 });
        } else if (onStack.has(dep)) low.set(top.key, Math.min(low.get(top.key)!, index.get(dep)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.key, Math.min(low.get(parent.key)!, low.get(top.key)!));
      if (low.get(top.key) !== index.get(top.key)) continue;
      const component: string[] = [];
      for (;;) {
        const k = stack.pop()!;
        onStack.delete(k);
        component.push(k);
        if (k === top.key) break;
      }
      component.reverse();
      if (component.length > 1 || out.includes(top.key)) for (const k of component) result.set(k, component);
    }
  }
  return result;
}
