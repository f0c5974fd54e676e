// A plain git remote as a forge provider: any remote no other provider takes (file://, a local
// path, a plain ssh or http git server). git's own credentials apply, `land` runs abcd's queue as
// records and lands with a fenced push of main, and the remote holds no items of its own.
import type { Forge, ForgeProvider } from '../forge.js';

const PLAIN_REMOTE: Forge = {
  name: 'a plain git remote',
  credentials: () => Promise.resolve({}),
  landing: { through: 'records-queue' },
};

export const gitProvider: ForgeProvider<'git'> = {
  kind: 'git',
  detect: () => PLAIN_REMOTE,
};
