// `abcd serve`: a read-only local web page of the fleet, live.
import type { Command } from '../command.js';
import { durationArg } from '../args.js';
import { unlessSystemError } from '../../core/best-effort.js';
import { UsageError } from '../../core/refusals.js';
import { stringifySafeJson } from '../../core/sanitize.js';

// Reading the remote faster than this only loads it.
const MIN_EVERY_MS = 500;

export const serve: Command = {
  command: 'serve',
  describe: 'serve a read-only web page of lanes, queue, items, timeline and spend on 127.0.0.1, live, until Ctrl-C',
  refusals: [
    'git-failed',
    'record-too-new',
    'remote-unavailable',
    'record-invalid',
    'deadline',
    'unsafe-environment',
    'forge-rejected',
    'item-invalid',
  ],
  usesRemote: true,
  examples: [
    ['abcd serve', "print the page's address (with its token) and serve it until Ctrl-C"],
    ['abcd serve --port 8377 --open', 'on a fixed port, opening the page in the browser'],
    ['abcd serve --every 10s', 'read the remote every 10 seconds (one read for every viewer)'],
  ],
  builder: (y) =>
    y
      .option('port', { type: 'string', describe: 'the port on 127.0.0.1 (default: any free one)' })
      .option('open', { type: 'boolean', default: false, describe: 'open the page in the default browser' })
      .option('every', { type: 'string', describe: 'how often the remote is read while the page is open (default 5s)' }),
  async run(args, deps) {
    const port = portArg(args.port);
    const everyMs = Math.max(MIN_EVERY_MS, durationArg(args.every ?? '5s', '--every', 5000));
    const [{ openRepo }, { readFleet }, { startServer }, logs] = await Promise.all([
      import('../../repo/repo.js'),
      import('../../serve/fleet.js'),
      import('../../serve/server.js'),
      import('../../serve/local-logs.js'),
    ]);
    const repo = await openRepo(deps);
    const served = await startServer({
      read: () => readFleet(repo),
      actions: (fleet) => logs.latestActions(repo.commonDir, fleet),
      transcript: (runId, item) =>
        logs.runTranscript({ commonDir: repo.commonDir, runId, ...(item ? { item } : {}), render: logs.readableTranscript }),
      everyMs,
      port,
      clock: deps.clock,
    }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE')
        throw new UsageError(`port ${port} on 127.0.0.1 is taken: choose another (--port) or leave it out.`, 'count', {
          '--port': String(port),
        });
      throw e;
    });
    // The first line is the address: a script or a person takes it from there.
    deps.out.stdout(args.json ? stringifySafeJson({ ok: true, url: served.url, port: served.port }) + '\n' : `${served.url}\n`);
    if (!args.json) deps.out.stderr('abcd serve: read-only, on 127.0.0.1 only; Ctrl-C stops.\n');
    if (args.open) await openInBrowser(served.url);
    await new Promise<void>((resolve) => {
      if (!deps.signal || deps.signal.aborted) return resolve();
      deps.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await served.close();
    return { json: {}, text: '', printed: true };
  },
};

function portArg(v: unknown): number {
  if (v === undefined) return 0;
  const s = String(v);
  if (!/^\d{1,5}$/.test(s) || Number(s) > 65535)
    throw new UsageError(`--port takes a port number, 0 to 65535 (got "${s}")`, 'count', { '--port': s });
  return Number(s);
}

/** Best effort: the page's address is printed whatever the opener does. */
async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(opener, [url], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch (e) {
    // An opener the system cannot start (a failed system call): the printed address still works.
    unlessSystemError(undefined)(e);
  }
}
