// Which claims this session has held, to tell a takeover (exit 5) from never holding (exit 3).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readIfExists, refFileName, writeAtomic } from './local-files.js';

/**
 * Which claims this session has held. It tells "your claim was taken over" (fenced, exit 5)
 * apart from "you never held this" (exit 3).
 */
export class HeldMemory {
  constructor(private readonly dir: string) {}

  async remember(ref: string, tip: string): Promise<void> {
    await writeAtomic(join(this.dir, refFileName(ref)), JSON.stringify({ ref, tip }) + '\n');
  }

  async forget(ref: string): Promise<void> {
    await rm(join(this.dir, refFileName(ref)), { force: true });
  }

  async has(ref: string): Promise<boolean> {
    return (await readIfExists(join(this.dir, refFileName(ref)))) !== undefined;
  }
}
