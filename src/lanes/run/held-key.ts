// The model key a runtime's `keyFile` names, read before anything is claimed. Only abcd's model
// gateway holds a key read from a file: unsandboxed there is no gateway, and handing the agent
// the file's key in its environment would give it what the setting exists to keep from it.
import { UsageError } from '../../core/refusals.js';
import { keyFilePath, readKeyFile } from '../../machine/gateway/key-file.js';
import type { RuntimeSetup } from '../runtimes/spec.js';

export interface HeldKey {
  key: string;
  /** The file it came from: hidden from every sandbox. */
  path: string;
}

/** The key `setup.keyFile` names, or a UsageError (nothing claimed); undefined when none is set. */
export async function heldKeyOf(setup: RuntimeSetup, o: { gateway: boolean; home: string }): Promise<HeldKey | undefined> {
  const f = setup.keyFile;
  if (!f) return undefined;
  const path = keyFilePath(f.setting, o.home);
  if (!o.gateway) {
    throw new UsageError(
      `${f.key} names a model key file, which only abcd's model gateway reads, and the gateway runs only with the lane's sandbox: ` +
        "install bubblewrap (or drop --sandbox none), or give the key in abcd's environment instead; nothing was claimed.",
      'key-file',
      { key: f.key, path: path ?? f.setting, reason: 'no-gateway' },
    );
  }
  const key = await readKeyFile(f.key, f.setting, { home: o.home });
  return { key, path: path! };
}
