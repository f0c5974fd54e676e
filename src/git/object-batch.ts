// Sizes first, then contents, from ONE `git cat-file --batch-command` process: the caller sees
// every object's type and size before it asks for any content (so a huge blob is refused
// unread), without a second process for the contents.
import { gitFailed, GitRunner, runnerOf, type RUNNER } from './runner.js';

/** An object's type and size as `cat-file` reports them; undefined: missing (or ambiguous). */
export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

export interface InfoThenContents {
  infos: (ObjectInfo | undefined)[];
  /** The contents of what `pick` chose, in its order. */
  contents: Buffer[];
}

/**
 * Asks for `info` of each spec, hands the answers to `pick`, then reads the contents of the ids
 * it returns, all in one process. undefined: this git has no `--batch-command` (before 2.36):
 * the caller reads the old way. A git that fails otherwise is GitFailed (exit 9), as `must` is.
 */
export async function infoThenContents(
  client: GitRunner | { readonly [RUNNER]: GitRunner },
  specs: readonly string[],
  pick: (infos: (ObjectInfo | undefined)[]) => string[],
): Promise<InfoThenContents | undefined> {
  const git = client instanceof GitRunner ? client : runnerOf(client);
  let infos: (ObjectInfo | undefined)[] | undefined;
  let picked: string[] = [];
  let lines = 0;
  let stdin: { write: (chunk: string) => void; end: () => void } | undefined;
  let seen: Buffer[] = [];
  const answered = () => {
    const text = Buffer.concat(seen).toString('latin1').split('\n').slice(0, specs.length);
    seen = [];
    infos = text.map(parseInfo);
    picked = pick(infos);
    stdin?.write(picked.map((oid) => `contents ${oid}\n`).join(''));
    stdin?.end();
  };
  const r = await git.run(['cat-file', '--batch-command'], {
    feed: (pipe) => {
      stdin = pipe;
      if (specs.length === 0) return answered();
      pipe.write(specs.map((s) => `info ${s}\n`).join(''));
    },
    onStdout: (chunk) => {
      if (infos) return;
      seen.push(chunk);
      for (const byte of chunk) if (byte === 10) lines++;
      if (lines >= specs.length) answered();
    },
  });
  if (r.exitCode === 129 && /batch-command/.test(r.stderr)) return undefined;
  if (r.exitCode !== 0 || !infos) throw gitFailed(git.dir, ['cat-file', '--batch-command'], r);
  return { infos, contents: readContents(r.stdout, specs.length, picked) };
}

/** A `cat-file` info line: `<oid> <type> <size>`, or `<spec> missing` / `<spec> ambiguous`. */
export function parseInfo(line: string): ObjectInfo | undefined {
  const [oid, type, sizeText] = line.split(' ');
  const size = Number(sizeText);
  if (!oid || !type || type === 'missing' || type === 'ambiguous' || !Number.isInteger(size)) return undefined;
  return { oid, type, size };
}

/** The contents answers after the first `skip` info lines, one per picked id, in order. */
function readContents(out: Buffer, skip: number, picked: readonly string[]): Buffer[] {
  let pos = 0;
  for (let i = 0; i < skip; i++) pos = out.indexOf(10, pos) + 1;
  const contents: Buffer[] = [];
  for (const oid of picked) {
    const nl = out.indexOf(10, pos);
    if (nl < 0) throw new Error(`git cat-file --batch-command stopped early at ${oid}`);
    const info = parseInfo(out.subarray(pos, nl).toString('latin1'));
    if (!info) throw new Error(`git cat-file --batch-command has no object ${oid}`);
    pos = nl + 1;
    contents.push(Buffer.from(out.subarray(pos, pos + info.size)));
    pos += info.size + 1;
  }
  return contents;
}
