// lanes.notify: a lane posts one JSON message per event to the webhook whose URL is in the
// variable the config names, Slack-shaped (`text`, and abcd's own fields); the URL never reaches
// the record, the logs or the answer; a webhook that never answers costs the run a bounded wait,
// and its posts are counted in the result.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneRun, laneSession, processesWith, remoteWithItems, killProcessesWith } from '../harness/lanes.js';
import { ABCD_BIN } from '../harness/session.js';
import { NOTIFY_SETTLE_MS } from '../../src/lanes/run/notify.js';

afterAll(cleanupTemp);

// The path part of the URL is the secret (as in Slack's): it must appear nowhere abcd writes.
const SECRET_PATH = '/services/T0NOTIFY/B0CANARY/secretHookPath42';
const FAILING_ON_BETA = `if [ "$ABCD_ITEM" = local:item:beta ]; then echo "beta is broken"; exit 3; fi; ${COMMITTING_AGENT}`;

interface Hook {
  url: string;
  got: Array<{ path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** A webhook on 127.0.0.1: answers 200 to each POST (or never, with `hang`). */
async function webhook(o: { hang?: boolean } = {}): Promise<Hook> {
  const got: Hook['got'] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (o.hang) return; // accepts, reads, never answers
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${SECRET_PATH}`,
    got,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Every file under the clone's run logs, and the remote's lane records, as one text. */
async function writtenText(cloneDir: string, remoteDir: string): Promise<string> {
  const logs = join(cloneDir, '.git/abcd/logs');
  let text = '';
  for (const run of await readdir(logs).catch(() => [] as string[]))
    for (const f of await readdir(join(logs, run))) text += await readFile(join(logs, run, f), 'utf8');
  const refs = await execa('git', ['-C', remoteDir, 'for-each-ref', '--format=%(refname)', 'refs/heads/abcd/lanes/']);
  for (const ref of String(refs.stdout).split('\n').filter(Boolean))
    text += String((await execa('git', ['-C', remoteDir, 'log', '-p', '--format=%B', ref])).stdout);
  return text;
}

describe('lanes.notify', () => {
  it('posts a landing and a failure of a real drain to the webhook, and keeps its URL out of every record and log', async () => {
    const hook = await webhook();
    try {
      const remote = await remoteWithItems([{ slug: 'alpha' }, { slug: 'beta' }], { lanes: { notify: { env: 'LANE_HOOK_URL' } } });
      const s = await laneSession(remote, 'notifier', { LANE_HOOK_URL: hook.url });
      const r = await s.abcd(['drain', '--json', '--agent', FAILING_ON_BETA], { timeoutMs: 120_000 });
      const run = laneRun(r);
      expect(run, r.stdout + r.stderr).toBeTruthy();
      const byEvent = new Map(hook.got.map((g) => [(g.body.abcd as { event: string }).event, g]));
      expect([...byEvent.keys()].sort()).toEqual(['failed', 'landed']);
      expect(hook.got.every((g) => g.path === SECRET_PATH)).toBe(true);
      const landed = byEvent.get('landed')!.body;
      expect(landed.text).toMatch(/^abcd: landed alpha \([0-9a-f]{12}\)\./);
      expect(landed.abcd).toMatchObject({ v: 1, event: 'landed', item: 'alpha', outcome: 'landed', runId: run.runId });
      const failed = byEvent.get('failed')!.body;
      expect(failed.text).toContain('beta failed');
      expect(failed.abcd).toMatchObject({ event: 'failed', item: 'beta', outcome: 'failed', runId: run.runId });
      expect(run.record.notify).toEqual({ sent: 2, failed: 0 });
      expect(run.record.runtime).toBe('command');

      const written = await writtenText(s.dir, remote.dir);
      const onRemote = await execa('git', ['-C', remote.dir, 'show', `refs/heads/abcd/lanes/${run.runId}:record.json`]);
      expect(JSON.parse(String(onRemote.stdout)).notify).toEqual({ sent: 2, failed: 0 });
      expect(written).not.toContain('secretHookPath42');
      expect(r.stdout + r.stderr).not.toContain('secretHookPath42');
    } finally {
      await hook.close();
    }
  }, 180_000);

  it('a webhook that never answers delays the run by the bound at most, and the post is counted as failed', async () => {
    const hook = await webhook({ hang: true });
    try {
      const remote = await remoteWithItems([{ slug: 'gamma' }], { lanes: { notify: { env: 'LANE_HOOK_URL', events: ['landed'] } } });
      const s = await laneSession(remote, 'patient', { LANE_HOOK_URL: hook.url });
      const r = await s.abcd(['build', 'gamma', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 120_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const rec = r.json.record;
      expect(rec.cycles[0].outcome).toBe('landed');
      expect(rec.notify).toEqual({ sent: 0, failed: 1 });
      // From the cycle's end to the record's last write: the settle's bound, plus slack for a loaded machine.
      const cycleEnd = rec.cycles[0].startedAt + rec.cycles[0].durationMs;
      expect(rec.at - cycleEnd).toBeLessThan(NOTIFY_SETTLE_MS + 8_000);
      expect(r.stdout + r.stderr).not.toContain('secretHookPath42');
    } finally {
      await hook.close();
    }
  }, 120_000);

  it('the next run in the clone tells of a run killed with -9: lost, once', async () => {
    const hook = await webhook();
    const marker = `notify-lost-${process.pid}-${Date.now()}`;
    try {
      const remote = await remoteWithItems([{ slug: 'crash' }, { slug: 'next' }], { lanes: { notify: { env: 'LANE_HOOK_URL' } } });
      const s = await laneSession(remote, 'survivor', { LANE_HOOK_URL: hook.url });
      const doomed = execa(process.execPath, [ABCD_BIN, 'build', 'crash', '--json', '--agent', `sleep 600 # ${marker}`], {
        cwd: s.dir,
        env: s.env,
        extendEnv: false,
        reject: false,
      });
      const end = Date.now() + 60_000;
      while ((await processesWith(marker)).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      // Its record is written within moments of its claim: the run id the next run must name.
      let lostId: string | undefined;
      while (!lostId && Date.now() < end) {
        lostId = (await s.abcd(['status', '--json'])).json.lanes?.[0]?.runId as string | undefined;
        if (!lostId) await new Promise((r) => setTimeout(r, 200));
      }
      expect(lostId).toBeTruthy();
      doomed.kill('SIGKILL');
      await doomed;
      await killProcessesWith(marker);

      const next = await s.abcd(['build', 'next', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 120_000 });
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const lost = hook.got.filter((g) => (g.body.abcd as { event: string }).event === 'lost');
      expect(lost).toHaveLength(1);
      expect(lost[0]!.body.abcd).toMatchObject({ event: 'lost', runId: lostId, foundBy: next.json.runId });
      expect(lost[0]!.body.text).toContain(`run ${lostId} was lost`);
      // Told once: a later run finds nothing more to tell.
      await s.abcd(['build', 'next', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 60_000 });
      expect(hook.got.filter((g) => (g.body.abcd as { event: string }).event === 'lost')).toHaveLength(1);
    } finally {
      await killProcessesWith(marker);
      await hook.close();
    }
  }, 180_000);
});
