// A commit's author and committer read from its raw object, as `git log --format=%cn%x00%ce%x00%an%x00%ae`
// prints them: the last `author` and `committer` header lines (pretty.c's parse_commit_header),
// each split as git's split_ident_line splits it, no mailmap (%cn is not %cN). Only the plain
// case: a header with a NUL or an encoding line, or an ident git would print empty, is undefined
// and git prints it.

/** Who made a commit, as `log -1 --format=%cn%x00%ce%x00%an%x00%ae` answers it, trimmed. */
export interface CommitIdents {
  committerName: string;
  committerEmail: string;
  authorName: string;
  authorEmail: string;
}

const NL = 10;

/** The idents of a commit's raw body; undefined: ask git. */
export function commitIdents(body: Buffer): CommitIdents | undefined {
  let end = body.indexOf('\n\n', 0, 'latin1');
  if (end < 0) end = body.length;
  const header = body.subarray(0, end);
  if (header.includes(0)) return undefined;
  let author: Buffer | undefined;
  let committer: Buffer | undefined;
  for (let at = 0; at < header.length;) {
    let eol = header.indexOf(NL, at);
    if (eol < 0) eol = header.length;
    const line = header.subarray(at, eol);
    // A commit in another encoding is re-encoded for the log's output: git does that.
    if (startsWith(line, 'encoding ')) return undefined;
    if (startsWith(line, 'author ')) author = line.subarray('author '.length);
    else if (startsWith(line, 'committer ')) committer = line.subarray('committer '.length);
    at = eol + 1;
  }
  const a = author && splitIdent(author);
  const c = committer && splitIdent(committer);
  if (!a || !c) return undefined;
  // The bytes git would print, read as the old `log` output was read: UTF-8, trimmed once.
  const nul = Buffer.from([0]);
  const text = Buffer.concat([c.name, nul, c.email, nul, a.name, nul, a.email]).toString().trim();
  const [committerName = '', committerEmail = '', authorName = '', authorEmail = ''] = text.split('\0');
  return { committerName, committerEmail, authorName, authorEmail };
}

/** git's split_ident_line, name and mail only: `Name <mail>` with anything after the `>`. */
function splitIdent(line: Buffer): { name: Buffer; email: Buffer } | undefined {
  const lt = line.indexOf('<');
  if (lt < 0) return undefined;
  const gt = line.indexOf('>', lt + 1);
  if (gt < 0) return undefined;
  let nameEnd = lt;
  while (nameEnd > 0 && isGitSpace(line[nameEnd - 1]!)) nameEnd--;
  return { name: line.subarray(0, nameEnd), email: line.subarray(lt + 1, gt) };
}

/** git's own isspace: space, tab, newline, carriage return (not the C library's, which adds \v and \f). */
function isGitSpace(byte: number): boolean {
  return byte === 32 || byte === 9 || byte === 10 || byte === 13;
}

function startsWith(line: Buffer, prefix: string): boolean {
  return line.length >= prefix.length && line.toString('latin1', 0, prefix.length) === prefix;
}
