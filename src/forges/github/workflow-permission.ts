// GitHub refuses a GitHub App's push that creates or changes a file under .github/workflows
// unless the App holds the `workflows` permission (write). Checked before pushing, so the lane
// gets a refusal that names the files and the fix instead of a bare remote rejection after work.
import { UnsafeEnvironment } from '../../core/refusals.js';

export interface WorkflowPermissionInput {
  /** Paths the push adds, changes or deletes, relative to the repository root. */
  changedPaths: readonly string[];
  /** The token's permissions as GitHub reports them, e.g. `{contents: 'write', workflows: 'write'}`. */
  permissions: Readonly<Record<string, string | undefined>>;
}

// Compared without case: refusing a look-alike path early costs less than a push GitHub rejects.
const WORKFLOWS_DIR = /^\.github\/workflows(\/|$)/i;

/** The changed paths GitHub treats as workflow files. */
export function workflowPaths(changedPaths: readonly string[]): string[] {
  return changedPaths.map((p) => p.replace(/^\.\//, '')).filter((p) => WORKFLOWS_DIR.test(p));
}

/** Throws UnsafeEnvironment (exit 7) when the push touches workflows and the App may not write them. */
export function assertWorkflowPermission(i: WorkflowPermissionInput): void {
  const paths = workflowPaths(i.changedPaths);
  if (paths.length === 0 || i.permissions.workflows === 'write') return;
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ` and ${paths.length - 10} more` : '');
  throw new UnsafeEnvironment(
    `the push changes ${shown} under .github/workflows, and the App's token lacks the "workflows" permission ` +
      `(it has ${i.permissions.workflows ?? 'none'}), so GitHub would refuse it; nothing was pushed. ` +
      'Give the App the workflows permission (Repository permissions → Workflows: Read and write), ' +
      'have the installation accept it, and push again; or leave the workflow change to the person.',
    { reason: 'workflows-permission', paths, permission: 'workflows', has: i.permissions.workflows ?? null },
  );
}
