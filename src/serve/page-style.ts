// The page's style sheet: system fonts, one column that fits a phone, tables that scroll
// sideways instead of widening the page, the outcome colours the timeline and its legend share.
export const PAGE_STYLE = `
:root { color-scheme: light dark; --ok: #2e9d4f; --bad: #d0443e; --warn: #d98b1c; --dim: #8a8f98; --run: #3b82f6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { display: flex; gap: 1em; align-items: baseline; padding: 0.5em 1em; border-bottom: 1px solid var(--dim); }
h1 { font-size: 1.2em; margin: 0; } h2 { font-size: 1.05em; margin: 1.2em 0 0.4em; } h3 { font-size: 0.95em; margin: 0.6em 0 0.2em; }
main { padding: 0 1em 2em; max-width: 1100px; }
#live { color: var(--ok); font-size: 0.85em; } #live.down { color: var(--bad); }
.read, .none, .who, .axis { color: var(--dim); }
.error, .bad, .lost { color: var(--bad); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.2em 0.5em; border-bottom: 1px solid rgba(128,128,128,0.25); white-space: nowrap; }
td.action { white-space: normal; min-width: 12em; overflow-wrap: anywhere; }
ul { margin: 0.2em 0 0.6em; padding-left: 1.2em; }
li { overflow-wrap: anywhere; }
.why { color: var(--bad); font-size: 0.92em; }
summary { cursor: pointer; font-weight: 600; }
.g-failing summary { color: var(--bad); } .g-needs-review summary { color: var(--warn); }
svg { width: 100%; min-width: 640px; height: auto; font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3em 1em; color: var(--dim); font-size: 0.85em; margin: 0.2em 0; }
.legend i { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; vertical-align: -0.05em; border-radius: 2px; }
.legend i.o-landed { background: var(--ok); } .legend i.o-failed { background: var(--bad); }
.legend i.o-timeout { background: var(--warn); } .legend i.o-no-change { background: var(--dim); }
svg text { fill: currentColor; }
.o-landed { fill: var(--ok); } .o-failed { fill: var(--bad); } .o-timeout { fill: var(--warn); }
.o-no-change, .o-cancelled, .o-deferred { fill: var(--dim); }
.running { fill: var(--run); opacity: 0.5; } .landing { fill: var(--ok); } .spend { fill: var(--run); }
pre.transcript { padding: 1em; white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-size: 0.92em; }
`;
