// The page `abcd serve` serves: the fleet's body (lanes now, the queue, items by state with
// failures first, the timeline and the spend), rendered on the server from one read, and the
// shell around it: its style sheet and the few lines of script that swap the body when the
// server sends a new one. Every record-derived text goes through `html` (escaped).
import type { StatusData } from '../status/status.js';
import { Html, html } from './html.js';
import { money, seconds, spendSvg, timelineSvg, tokens, transcriptHref } from './charts.js';
import type { Fleet, ItemRow, ItemState } from './fleet.js';
import { PAGE_STYLE } from './page-style.js';

/** The agent's latest action per running item, keyed `${runId} ${item}` (from this clone's logs; absent elsewhere). */
export type LatestActions = ReadonlyMap<string, string>;

const STATE_ORDER: readonly ItemState[] = ['failing', 'needs-review', 'claimed', 'ready', 'blocked', 'done'];
const STATE_TITLE: Record<ItemState, string> = {
  failing: 'Failing',
  'needs-review': 'Needs review',
  claimed: 'Claimed',
  ready: 'Ready',
  blocked: 'Blocked',
  done: 'Done',
};

export function fleetBody(fleet: Fleet, actions: LatestActions, readError?: string): Html {
  return html`${readError ? html`<p class="error" role="alert">${readError}</p>` : ''}
    <p class="read">Read ${new Date(fleet.readAt).toISOString().replace('T', ' ').slice(0, 19)}Z from ${fleet.status.remote}</p>
    <section id="lanes">
      <h2>Lanes now</h2>
      ${lanesNow(fleet.status, actions)}
    </section>
    <section id="queue">
      <h2>Land queue</h2>
      ${queue(fleet.status)}
    </section>
    <section id="items">
      <h2>Items</h2>
      ${items(fleet.items, fleet.itemsRefused)}
    </section>
    <section id="timeline">
      <h2>Last runs</h2>
      ${timelineSvg(fleet.runs, fleet.readAt)}
    </section>
    <section id="spend">
      <h2>Spend, last day</h2>
      <h3>By item</h3>
      ${spendSvg(fleet.spend.byItem, 'spend per item')}
      <h3>By runtime</h3>
      ${spendSvg(fleet.spend.byRuntime, 'spend per runtime')}
    </section>`;
}

/** The body before any read succeeded: what failed. */
export function readFailedBody(error: string): Html {
  return html`<p class="error" role="alert">${error}</p>
    <p class="none">Nothing read yet; the page tries again on its own.</p>`;
}

function lanesNow(s: StatusData, actions: LatestActions): Html {
  const rows = s.lanes
    .filter((l) => l.state === 'running')
    .flatMap((l) =>
      l.current.map(
        (c) =>
          html`<tr data-item="${c.item}">
            <td>${c.item}</td>
            <td>${c.phase ?? '—'}</td>
            <td class="action">${actions.get(`${l.runId} ${c.item}`) ?? '—'}</td>
            <td>${seconds(c.forMs)}</td>
            <td>${c.usage !== undefined ? tokens(c.usage) : '—'}</td>
            <td>${c.costUsd !== undefined ? money(c.costUsd) : '—'}</td>
            <td>${l.holder}</td>
          </tr>`,
      ),
    );
  const lost = s.lanes.filter((l) => l.state === 'lost');
  const lostLine = lost.length
    ? html`<p class="lost">${lost.length} lost run${lost.length === 1 ? '' : 's'}: ${lost.map((l) => l.runId).join(', ')}</p>`
    : '';
  if (rows.length === 0)
    return html`<p class="none">No lane is working now.</p>
      ${lostLine}`;
  return html`<div class="scroll">
      <table>
        <thead>
          <tr>
            <th>item</th>
            <th>phase</th>
            <th>latest action</th>
            <th>time</th>
            <th>tokens</th>
            <th>cost</th>
            <th>holder</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
    </div>
    ${lostLine}`;
}

function queue(s: StatusData): Html {
  if (s.queue.length === 0) return html`<p class="none">The queue is empty.</p>`;
  const head = new Map(s.queue.filter((q) => q.batch?.head).map((q) => [q.item, q.holder] as const));
  const rows = s.queue.map((q) => {
    const tests = q.batch
      ? q.batch.head
        ? 'tests its batch'
        : `tested by ${q.batch.of} (${head.get(q.batch.of) ?? 'its head'})`
      : 'tests itself';
    const flag = q.refused
      ? html`<span class="bad">refused by ${q.refused.by}: ${q.refused.reason}</span>`
      : !q.alive
        ? html`<span class="bad">claim lapsed: skipped</span>`
        : '';
    return html`<tr data-item="${q.item}">
      <td>${q.position}</td>
      <td>${q.item}</td>
      <td>${q.holder}</td>
      <td>${q.priority ?? 'normal'}</td>
      <td>${q.batch ? `batch of ${q.batch.of}` : '—'}</td>
      <td>${tests} ${flag}</td>
    </tr>`;
  });
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>item</th>
          <th>holder</th>
          <th>priority</th>
          <th>batch</th>
          <th>testing</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

function items(rows: readonly ItemRow[], refused: number): Html {
  const groups = STATE_ORDER.map((state) => {
    const of = rows.filter((r) => r.state === state);
    if (of.length === 0) return '';
    const list = of.map((r) => itemLine(r));
    // Done work is the long list that matters least: folded.
    return html`<details class="group g-${state}" data-state="${state}" ${state === 'done' ? '' : html` open`}>
      <summary>${STATE_TITLE[state]} (${of.length})</summary>
      <ul>
        ${list}
      </ul>
    </details>`;
  });
  const bad = refused ? html`<p class="bad">${refused} item file${refused === 1 ? '' : 's'} could not be read (abcd items).</p>` : '';
  return rows.length
    ? html`${bad}${groups}`
    : html`${bad}
        <p class="none">No items.</p>`;
}

function itemLine(r: ItemRow): Html {
  const i = r.item;
  const claim = i.claim?.live ? html` <span class="who">${i.claim.holder}</span>` : '';
  const blocked = i.blockedBy.length ? html` <span class="who">waits on ${i.blockedBy.join(', ')}</span>` : '';
  const f = r.failure;
  const why = f
    ? html`<div class="why">
        ${f.cycle.outcome}${f.cycle.code ? ` (${f.cycle.code})` : ''}${f.cycle.reason ? `: ${f.cycle.reason}` : ''}${f.cycle.kept ? html` · work kept on <code>${f.cycle.kept.branch}</code>` : ''}
        · <a href="${transcriptHref(f.runId, i.slug)}">transcript</a> · <code>abcd logs ${f.runId} --item ${i.slug}</code>
      </div>`
    : '';
  return html`<li data-item="${i.slug}"><b>${i.slug}</b> <span class="title">${i.title}</span>${claim}${blocked}${why}</li>`;
}

/** The whole page: the body inside the shell, the script allowed by this response's nonce only. */
export function pageHtml(body: Html, nonce: string): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>abcd fleet</title>
        <style nonce="${nonce}">
          ${new Html(PAGE_STYLE)}
        </style>
      </head>
      <body>
        <header>
          <h1>abcd fleet</h1>
          <span id="live" data-updates="0">live</span>
        </header>
        <main id="fleet">${body}</main>
        <script nonce="${nonce}">
          ${new Html(PAGE_SCRIPT)};
        </script>
      </body>
    </html>`.text;
}

/** The transcript page of one run: the text whole, escaped, in one preformatted block. */
export function transcriptHtml(title: string, text: string, nonce: string): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <style nonce="${nonce}">
          ${new Html(PAGE_STYLE)}
        </style>
      </head>
      <body>
        <header>
          <h1>${title}</h1>
          <a href="../">back to the fleet</a>
        </header>
        <pre class="transcript">${text}</pre>
      </body>
    </html>`.text;
}

// Swaps the body for each one the server sends; says when the stream is down (EventSource retries).
const PAGE_SCRIPT = `
const live = document.getElementById('live');
const es = new EventSource('events');
es.addEventListener('fleet', (e) => {
  document.getElementById('fleet').innerHTML = JSON.parse(e.data).html;
  live.dataset.updates = String(Number(live.dataset.updates) + 1);
  live.textContent = 'live';
  live.className = '';
});
es.onerror = () => { live.textContent = 'reconnecting…'; live.className = 'down'; };
`;
