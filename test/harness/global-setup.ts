// Once for the whole run: a folder the test files share (isolatedEnv and answer-contract.ts read
// it through ABCD_TEST_RUN_DIR), removed at the end. It holds the one compile cache every abcd
// the tests start uses, and `abcd schema`'s answer, which the first file to need it writes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'abcd-test-run-'));
  // Workers inherit this process's environment.
  process.env.ABCD_TEST_RUN_DIR = dir;
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
