// `abcd credential`: the git credential helper side of abcd's credential channel.
import type { Argv } from 'yargs';
import type { Command } from '../command.js';

// git writes a few short lines; a request larger than this is not git's.
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * `abcd credential <get|store|erase>`: the git credential-helper end of abcd's channel. abcd
 * configures it for one git call at a time (src/forges/github/credentials/channel.ts); run any other way it
 * has no channel and answers nothing. It never prompts: no answer lets git fail auth itself.
 */
export const credential: Command = {
  command: 'credential <action>',
  describe: "git credential-helper end of abcd's private channel (abcd installs it for its own git calls)",
  refusals: [],
  examples: [
    ['abcd credential get', "what git runs: prints username= and password= only inside abcd's own git call"],
    ['abcd credential erase', 'store and erase are read and ignored: abcd keeps no credential'],
  ],
  builder: (y: Argv) =>
    y
      .positional('action', { type: 'string', describe: 'get, store or erase, as git names it' })
      .option('socket', { type: 'string', describe: 'the channel abcd opened for this git call (abcd sets it)' }),
  async run(args) {
    // Read whatever git sends even when ignoring it, so git never meets a closed pipe.
    const request = await readRequest(process.stdin);
    const socket = typeof args.socket === 'string' ? args.socket : '';
    // Any other action, including ones a later git may add, is acknowledged with nothing.
    if (args.action !== 'get' || socket === '') return { json: {}, text: '' };
    const { formatAttributes, parseAttributes, requestCredential } = await import('../../forges/github/credentials/channel-protocol.js');
    const answer = await requestCredential(socket, parseAttributes(request));
    if (answer === null) return { json: {}, text: '' };
    // Only the protocol text carries the password; the JSON answer never does.
    const text = formatAttributes([
      ['username', answer.username],
      ['password', answer.password],
    ]);
    return { json: {}, text };
  },
};

/** git's request: `key=value` lines up to a blank line or the end of stdin. */
function readRequest(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = (): void => {
      stdin.off('data', onData);
      stdin.off('end', done);
      stdin.off('error', done);
      stdin.pause();
      resolve(text);
    };
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      if (text.length > MAX_REQUEST_BYTES || text === '\n' || text.includes('\n\n')) done();
    };
    stdin.on('data', onData);
    stdin.once('end', done);
    stdin.once('error', done);
  });
}
