// `abcd schema | head -1`: the reader closes the pipe after what it wanted, and the next write
// fails with EPIPE. That is the reader's choice, not an error: end at once, quietly, with the
// status the verb had so far, as a command killed by SIGPIPE ends without a word.

let installed = false;

export function endQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}
