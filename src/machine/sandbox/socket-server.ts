// An HTTP server of abcd's own on a unix socket a sandbox reaches (the egress proxy, the model
// gateway): the socket path checked, every connection tracked and capped, all of them ended
// when the server closes. What the sandbox sends it is hostile: a flood is cut off here.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// sun_path holds 108 bytes on Linux, 104 on macOS: keep under both.
const MAX_SOCKET_PATH_BYTES = 100;
// Connections one sandbox may hold open to one server at once (a proxy's tunnel counts twice: both ends).
const MAX_OPEN_SOCKETS = 1024;

export interface SocketServer {
  /** Keeps `s` to end with the server; false (and `s` destroyed) when the sandbox holds too many. */
  track(s: Socket): boolean;
  close(): Promise<void>;
}

/** Listens on `socketPath` with `server`; `what` names it in the error for a path too long. */
export async function serveOnSocket(server: Server, socketPath: string, what: string): Promise<SocketServer> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`${what}'s socket path ${socketPath} is too long for a unix socket; set TMPDIR to a shorter folder`);
  const open = new Set<Socket>();
  const track = (s: Socket): boolean => {
    // A sandbox that opens more than this at once is flooding abcd's own process.
    if (open.size >= MAX_OPEN_SOCKETS) {
      s.destroy();
      return false;
    }
    open.add(s);
    s.on('close', () => open.delete(s));
    return true;
  };
  server.on('connection', (s: Socket) => void track(s));
  server.on('clientError', (_e, s: Socket) => s.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    track,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
