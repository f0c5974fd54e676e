import { dirname, basename } from 'node:path';
import { makeRemote, type BareRemote } from './remote.js';
import { startHttpGitServer, type HttpGitServer } from './http-server.js';

export type Transport = 'file' | 'http';

/** A bare remote reached over file:// or a real smart-HTTP server on 127.0.0.1. */
export interface TransportRemote extends BareRemote {
  /** The URL sessions clone and push to. */
  cloneUrl: string;
  stop(): Promise<void>;
}

export async function makeTransportRemote(transport: Transport): Promise<TransportRemote> {
  const remote = await makeRemote();
  if (transport === 'file') return { ...remote, cloneUrl: remote.url, stop: async () => {} };
  const server: HttpGitServer = await startHttpGitServer({ root: dirname(remote.dir) });
  return { ...remote, cloneUrl: server.url(basename(remote.dir)), stop: () => server.stop() };
}
