// Where a plain clone keeps its refs and objects, as its files showed them (files/clone-read.ts):
// a Git given these reads a ref or a loose object from the files before it asks git.

export interface CloneFiles {
  commonDir: string;
  objectsDir: string;
  /** No i18n.commitEncoding or i18n.logOutputEncoding: git's log prints a commit's bytes as they are. */
  plainLog: boolean;
}
