// Set-up shared by the tests of abcd's GitHub HTTP client: one stub per file, every expectation
// verified and the stub reset after each test, and a refusal that must never carry the token.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { GitHubClient } from '../../src/forges/github/client.js';
import { systemClock } from '../../src/core/deps.js';
import type { Refusal } from '../../src/core/refusals.js';
import { GitHubStub } from './github-stub.js';

type ClientOptions = ConstructorParameters<typeof GitHubClient>[0];

export interface StubbedGitHub {
  readonly stub: GitHubStub;
  /** A client of the stub with `token`, a 3 s call timeout unless `over` says otherwise. */
  client(over?: Partial<ClientOptions>): GitHubClient;
  /** Awaits a refusal of the given class and checks the token appears nowhere in it. */
  refusal<T extends Refusal>(p: Promise<unknown>, kind: abstract new (...a: never[]) => T): Promise<T>;
}

/** Registers the file's hooks; `check` runs after each test, before the stub is reset. */
export function useGitHubStub(token: string, check?: (stub: GitHubStub) => void): StubbedGitHub {
  let stub: GitHubStub | undefined;
  beforeAll(async () => {
    stub = await GitHubStub.start();
  });
  afterAll(async () => {
    await stub?.stop();
  });
  afterEach(() => {
    try {
      stub!.verify();
      check?.(stub!);
    } finally {
      stub!.reset();
    }
  });
  const self: StubbedGitHub = {
    get stub() {
      return stub!;
    },
    client: (over = {}) =>
      new GitHubClient({
        restUrl: self.stub.url,
        graphqlUrl: self.stub.graphqlUrl,
        token: async () => token,
        clock: systemClock,
        callTimeoutMs: 3000,
        ...over,
      }),
    async refusal(p, kind) {
      const e = await p.then(
        () => expect.fail('expected a refusal'),
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(kind);
      expect(JSON.stringify({ m: (e as Refusal).message, d: (e as Refusal).data })).not.toContain(token);
      return e as never;
    },
  };
  return self;
}
