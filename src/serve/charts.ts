// The page's two pictures, drawn as inline SVG on the server: the timeline of the last runs
// (one row per run, each cycle a bar coloured by its outcome and linked to its transcript, a
// landing marked above its bar) and the last day's spend as horizontal bars. Rectangles and
// text only: the browser scales them to the screen's width, and nothing is fetched.
import type { CycleRecord } from '../records/lane-result.js';
import { html, urlPart, type Html } from './html.js';
import type { RunRow, SpendRow } from './fleet.js';

const VIEW_WIDTH = 1000;
const LABEL_WIDTH = 220;
const ROW_HEIGHT = 26;
const BAR_HEIGHT = 14;
// A cycle of a few seconds on a day's axis still gets a bar one can tap.
const MIN_BAR_WIDTH = 4;
// The spend chart's rows: the largest ones, the rest summed in one.
const MAX_SPEND_ROWS = 15;

/** The colour class of a cycle's outcome (the page's style sheet holds the colours). */
export function outcomeClass(outcome: CycleRecord['outcome']): string {
  return `o-${outcome}`;
}

/** Where a cycle's transcript is served: the run's page, that item's cycles. */
export function transcriptHref(runId: string, item: string): string {
  return `run/${urlPart(runId)}?item=${urlPart(item)}`;
}

export function timelineSvg(runs: readonly RunRow[], now: number): Html {
  if (runs.length === 0) return html`<p class="none">No lane ran in the last day.</p>`;
  const from = Math.min(...runs.map((r) => r.startedAt));
  const span = Math.max(1, now - from);
  const plot = VIEW_WIDTH - LABEL_WIDTH - 10;
  const x = (t: number) => LABEL_WIDTH + ((t - from) / span) * plot;
  const height = runs.length * ROW_HEIGHT + 24;
  const rows = runs.map((r, i) => {
    const y = i * ROW_HEIGHT + 6;
    const bars = r.cycles.map((c) => {
      const x0 = x(c.startedAt);
      const w = Math.max(MIN_BAR_WIDTH, x(c.startedAt + c.durationMs) - x0);
      const tip = `${c.item}: ${c.outcome}${c.reason ? ` (${c.reason})` : ''}, ${seconds(c.durationMs)}`;
      const mark = c.outcome === 'landed' ? html`<path class="landing" d="M${f(x0 + w / 2 - 4)} ${y - 1}h8l-4 5z" />` : '';
      return html`<a href="${transcriptHref(r.runId, c.item)}" data-item="${c.item}" data-outcome="${c.outcome}"
        ><rect class="${outcomeClass(c.outcome)}" x="${f(x0)}" y="${y + 4}" width="${f(w)}" height="${BAR_HEIGHT}" rx="2"
          ><title>${tip}</title></rect
        >${mark}</a
      >`;
    });
    const running =
      r.state === 'running'
        ? html`<rect
            class="running"
            x="${f(x(r.at))}"
            y="${y + 4}"
            width="${f(Math.max(MIN_BAR_WIDTH, x(now) - x(r.at)))}"
            height="${BAR_HEIGHT}"
          />`
        : '';
    return html`<g class="run" data-run="${r.runId}"
      ><text x="4" y="${y + 16}">${short(r.holder, 22)} · ${r.verb} · ${r.runtime}</text>${bars}${running}</g
    >`;
  });
  const axis = html`<text class="axis" x="${LABEL_WIDTH}" y="${height - 4}">${clockTime(from)}</text
    ><text class="axis" x="${VIEW_WIDTH - 10}" y="${height - 4}" text-anchor="end">${clockTime(now)}</text>`;
  const legend = (['landed', 'failed', 'timeout', 'no-change'] as const).map(
    (o) => html`<span><i class="${outcomeClass(o)}"></i>${o}</span>`,
  );
  return html`<div class="scroll">
      <svg class="timeline" viewBox="0 0 ${VIEW_WIDTH} ${height}" role="img" aria-label="timeline of the last runs">${rows}${axis}</svg>
    </div>
    <p class="legend">${legend}<span>▾ a landing; a bar opens its transcript</span></p>`;
}

/** Bars of dollars (tokens where no runtime reported dollars), largest first. */
export function spendSvg(rows: readonly SpendRow[], label: string): Html {
  if (rows.length === 0) return html`<p class="none">No spend in the last day.</p>`;
  const shown = rows.length > MAX_SPEND_ROWS ? [...rows.slice(0, MAX_SPEND_ROWS - 1), others(rows.slice(MAX_SPEND_ROWS - 1))] : rows;
  const byCost = shown.some((r) => r.costUsd > 0);
  const value = (r: SpendRow) => (byCost ? r.costUsd : r.tokens);
  const max = Math.max(...shown.map(value), 1e-9);
  const plot = VIEW_WIDTH - LABEL_WIDTH - 250;
  const bars = shown.map((r, i) => {
    const y = i * ROW_HEIGHT + 4;
    const w = Math.max(1, (value(r) / max) * plot);
    return html`<g data-key="${r.key}"
      ><text x="4" y="${y + 14}">${short(r.key, 26)}</text
      ><rect class="spend" x="${LABEL_WIDTH}" y="${y + 2}" width="${f(w)}" height="${BAR_HEIGHT}" /><text
        x="${f(LABEL_WIDTH + w + 6)}"
        y="${y + 14}"
        >${money(r.costUsd)} · ${tokens(r.tokens)} tok · ${r.cycles} cycle${r.cycles === 1 ? '' : 's'}</text
      ></g
    >`;
  });
  return html`<div class="scroll">
    <svg class="spend-chart" viewBox="0 0 ${VIEW_WIDTH} ${shown.length * ROW_HEIGHT + 8}" role="img" aria-label="${label}">${bars}</svg>
  </div>`;
}

function others(rest: readonly SpendRow[]): SpendRow {
  return rest.reduce((a, r) => ({ key: a.key, tokens: a.tokens + r.tokens, costUsd: a.costUsd + r.costUsd, cycles: a.cycles + r.cycles }), {
    key: `${rest.length} others`,
    tokens: 0,
    costUsd: 0,
    cycles: 0,
  });
}

export function money(usd: number): string {
  return usd >= 100 ? `$${usd.toFixed(0)}` : `$${usd.toFixed(2)}`;
}

export function tokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
}

export function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;
}

function clockTime(t: number): string {
  return new Date(t).toISOString().slice(11, 16) + 'Z';
}

function short(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function f(n: number): string {
  return n.toFixed(1);
}
