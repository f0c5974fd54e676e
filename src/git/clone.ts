// Facts of the clone itself: where its git directories are, its config, its remotes, and
// whether a commit's signature verifies.
import type { Tried } from './objects.js';
import type { CallOptions, GitRunner } from './runner.js';

/** Where a clone keeps its git data, as git reports it (paths may be relative to the directory). */
export interface CloneDirs {
  gitDir: string;
  commonDir: string;
  objects: string;
  format: string;
}

export class Clone {
  constructor(private readonly r: GitRunner) {}

  /** The clone's git directories and object format; undefined when the directory is in no clone. */
  async dirs(o: CallOptions = {}): Promise<CloneDirs | undefined> {
    const r = await this.r.run(['rev-parse', '--absolute-git-dir', '--git-common-dir', '--git-path', 'objects', '--show-object-format'], o);
    if (r.exitCode !== 0) return undefined;
    const [gitDir = '', commonDir = '', objects = '', format = ''] = r.stdout.toString().trim().split('\n');
    return { gitDir, commonDir, objects, format };
  }

  /** The common git directory (as git prints it), or undefined outside a clone. */
  async commonDir(o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['rev-parse', '--git-common-dir'], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /** The top of the working tree, or undefined outside one. */
  async topLevel(o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['rev-parse', '--show-toplevel'], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /** HEAD, its tree, where this worktree's index and shallow file are, and the object format. */
  async worktreeFacts(o: CallOptions = {}): Promise<{ head: string; tree: string; index: string; shallow: string; format: string }> {
    const out = await this.r.must(
      ['rev-parse', 'HEAD', 'HEAD^{tree}', '--git-path', 'index', '--git-path', 'shallow', '--show-object-format'],
      o,
    );
    const [head = '', tree = '', index = '', shallow = '', format = 'sha1'] = out.split('\n');
    return { head, tree, index, shallow, format };
  }

  /** A config value, or undefined when it is not set. */
  async config(key: string, o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['config', '--get', key], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /** `config -z --get-regexp` output (key, newline, value, NUL per entry); '' when none match. */
  async configMatching(regex: string, o: CallOptions = {}): Promise<string> {
    return (await this.r.run(['config', '-z', '--get-regexp', regex], o)).stdout.toString();
  }

  /** A remote's URL, or undefined when there is no such remote. */
  async remoteUrl(name: string, o: CallOptions = {}): Promise<string | undefined> {
    const r = await this.r.run(['remote', 'get-url', name], o);
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  }

  /**
   * Verifies a commit's signature (`config`: `-c` pairs, an allowed-signers file); what git said on
   * stderr when it verifies, or how it failed.
   */
  async verifyCommit(oid: string, o: CallOptions & { config?: readonly string[] } = {}): Promise<Tried<string>> {
    const r = await this.r.run([...(o.config ?? []), 'verify-commit', '--raw', oid], o);
    return r.exitCode === 0 ? { ok: true, value: r.stderr } : { ok: false, failure: r };
  }
}
