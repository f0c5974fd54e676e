// The node relay: the first process inside a sandbox whose network namespace holds only a
// loopback, where socat is not installed (socat-relay.ts is the relay where it is).
// It listens on each forward's in-sandbox loopback address, carries every TCP connection made
// there to that forward's unix socket on the host (bound into the sandbox), and only then starts
// the sandbox's command, with the same stdio, ending with its exit status. It holds no secret and
// decides nothing: what a connection may reach is decided on the host, behind the socket.
//
// It runs as `node -e <source> -- <forwards> <command...>` with the node that runs abcd, so it
// needs no file of its own inside the sandbox. The function below is that source: it must not
// use anything from outside its own body.

/** One in-sandbox loopback address whose connections go to a unix socket on the host. */
export interface LoopbackForward {
  /** A loopback address inside the sandbox (127.0.0.1, 127.0.0.2, ...). */
  host: string;
  /** Its port (from 1024: the sandbox holds no privilege to bind lower). */
  port: number;
  /** The unix socket on the host, at the same path inside the sandbox. */
  socket: string;
}

/** The relay's whole program; serialized with toString, so self-contained. */
export function relayMain(require: (id: string) => unknown, proc: NodeJS.Process): void {
  const net = require('node:net') as typeof import('node:net');
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const { constants } = require('node:os') as typeof import('node:os');
  const args = proc.argv.slice(1);
  const forwards = JSON.parse(args[0] ?? '[]') as LoopbackForward[];
  const command = args.slice(1);
  const fail = (why: string, code: number) => {
    proc.stderr.write(`abcd relay: ${why}\n`);
    proc.exit(code);
  };
  const start = () => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit' });
    child.on('error', (e) => fail(`${command[0]}: ${e.message}`, 127));
    child.on('exit', (code, signal) => proc.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 9) : 9)));
  };
  let waiting = forwards.length;
  if (waiting === 0) return start();
  for (const f of forwards) {
    const server = net.createServer({ allowHalfOpen: true }, (inside) => {
      const host = net.connect({ path: f.socket, allowHalfOpen: true });
      const drop = () => {
        inside.destroy();
        host.destroy();
      };
      inside.on('error', drop);
      host.on('error', drop);
      inside.pipe(host);
      host.pipe(inside);
    });
    server.on('error', (e) => fail(`cannot listen on ${f.host}:${f.port}: ${e.message}`, 70));
    server.listen({ host: f.host, port: f.port }, () => {
      if (--waiting === 0) start();
    });
  }
}

/** The relay's argv before the command it starts. */
export function relayPrefix(node: string, forwards: readonly LoopbackForward[]): string[] {
  return [node, '-e', `(${relayMain.toString()})(require, process)`, '--', JSON.stringify(forwards)];
}
