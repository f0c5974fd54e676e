// The answers to conditional GETs, kept in the clone's git dir: each URL's ETag, Link header
// and last body, so an unchanged listing is one 304 (free under GitHub's rate limit) and the
// body comes from here. A kept file that cannot be read is ignored and the URL asked afresh:
// the cache only ever saves a call, never decides an answer.
import { createHash, randomBytes } from '../../core/builtins.js';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { unlessSystemError } from '../../core/best-effort.js';
import type { GitHubClient, RestCall } from './client.js';
import { garbage } from './http-refusals.js';

export interface KeptAnswer {
  url: string;
  etag: string;
  link?: string;
  body: unknown;
}

export class KeptAnswers {
  constructor(private readonly dir: string) {}

  async read(url: string): Promise<KeptAnswer | undefined> {
    // Nothing kept yet, or a kept file the system will not give back: the URL is asked afresh.
    const text = await readFile(this.fileOf(url), 'utf8').catch(unlessSystemError(undefined));
    if (text === undefined) return undefined;
    let kept: Partial<KeptAnswer> | null;
    try {
      kept = JSON.parse(text) as Partial<KeptAnswer> | null;
    } catch {
      return undefined; // a single parse: the kept file
    }
    return typeof kept === 'object' && kept !== null && kept.url === url && typeof kept.etag === 'string'
      ? (kept as KeptAnswer)
      : undefined;
  }

  /** Written whole or not at all: a reader beside this one sees the old answer or the new. */
  async write(answer: KeptAnswer): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    await writeFile(tmp, JSON.stringify(answer));
    await rename(tmp, this.fileOf(answer.url));
  }

  private fileOf(url: string): string {
    return join(this.dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  }
}

export interface KeptGet<T> {
  data: T;
  link?: string;
  /** false when GitHub answered 304 and the kept body was used. */
  changed: boolean;
}

/** A GET that sends the kept ETag; a 304 answers with the kept body (checked again by `schema`). */
export async function getKept<S extends z.ZodType>(
  client: GitHubClient,
  kept: KeptAnswers,
  c: Omit<RestCall, 'method' | 'body'>,
  schema: S,
): Promise<KeptGet<z.infer<S>>> {
  const url = client.restUrlOf(c.path, c.query);
  const before = await kept.read(url);
  const usable = before && schema.safeParse(before.body).success ? before : undefined;
  const a = await client.restConditional(c, schema, usable?.etag);
  if (a.notModified) {
    // Without an ETag sent GitHub never answers 304: one that does has nothing to be unchanged from.
    if (!usable) throw garbage({ call: `GET ${c.path} (${c.what})`, write: false }, 'a body (it answered 304 to an unconditional GET)');
    return { data: schema.parse(usable.body) as z.infer<S>, ...(usable.link ? { link: usable.link } : {}), changed: false };
  }
  if (a.etag) await kept.write({ url, etag: a.etag, ...(a.link ? { link: a.link } : {}), body: a.data });
  return { data: a.data, ...(a.link ? { link: a.link } : {}), changed: true };
}
