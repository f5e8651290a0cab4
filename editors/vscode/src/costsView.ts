// "hlsched: Show stage costs": the HTML of the webview. A horizontal bar per stage, its predicted
// time split into its cost terms (stacked), and the suggested schedule beside it. Static HTML and
// SVG, no scripts. No `vscode` import: the node tests render it from the real server's answers.
import { formatMs } from './status';

/** One stage of hlsched/stageCosts (server/src/result_json.cpp). */
export interface StageCost {
  func: string;
  stage: number;
  placement?: string;
  predicted_ms: number;
  terms?: Record<string, number>;
  bound?: string;
}

export interface StageCosts {
  generator?: string;
  gpu_profile?: string;
  predicted_runtime_ms: number;
  stages: StageCost[];
  stale?: boolean;
}

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Every term name that appears, in a stable order (so colours do not move between stages). */
export function termNames(stages: StageCost[]): string[] {
  const names = new Set<string>();
  for (const s of stages) for (const name of Object.keys(s.terms ?? {})) names.add(name);
  return [...names].sort();
}

function stageLabel(s: StageCost): string {
  return s.stage > 0 ? `${s.func}.update(${s.stage - 1})` : s.func;
}

/** The stacked bar chart as SVG: one row per stage, one rect per positive cost term. */
export function stageBarsSvg(costs: StageCosts): string {
  const names = termNames(costs.stages);
  const colour = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length];
  const rowHeight = 22, labelWidth = 170, barWidth = 360, top = 4;
  const longest = Math.max(1e-12, ...costs.stages.map((s) => Object.values(s.terms ?? {}).reduce((a, b) => a + Math.max(0, b), 0)));
  const rows: string[] = [];
  costs.stages.forEach((s, i) => {
    const y = top + i * rowHeight;
    rows.push(`<text class="label" x="${labelWidth - 6}" y="${y + 15}" text-anchor="end">${escapeHtml(stageLabel(s))}</text>`);
    let x = labelWidth;
    for (const name of names) {
      const ms = Math.max(0, s.terms?.[name] ?? 0);
      if (ms <= 0) continue;
      const width = (barWidth * ms) / longest;
      rows.push(
        `<rect class="term" data-stage="${escapeHtml(s.func)}" data-term="${escapeHtml(name)}" x="${x.toFixed(2)}" y="${y + 3}" ` +
          `width="${width.toFixed(2)}" height="${rowHeight - 6}" fill="${colour(name)}"><title>${escapeHtml(
            `${stageLabel(s)} ${name}: ${formatMs(ms)}`)}</title></rect>`);
      x += width;
    }
    rows.push(`<text class="value" x="${x + 6}" y="${y + 15}">${formatMs(s.predicted_ms)}</text>`);
  });
  const legendY = top + costs.stages.length * rowHeight + 10;
  names.forEach((name, i) => {
    const x = labelWidth + (i % 3) * 130, y = legendY + Math.floor(i / 3) * 18;
    rows.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${colour(name)}"/>` +
      `<text class="legend" x="${x + 16}" y="${y + 11}">${escapeHtml(name)}</text>`);
  });
  const height = legendY + Math.ceil(names.length / 3) * 18 + 8;
  const width = labelWidth + barWidth + 90;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" ` +
    `aria-label="per-stage predicted cost terms">${rows.join('')}</svg>`;
}

/** The whole webview document. `scheduleCode` is the suggested schedule() body, if known. */
export function stageCostsHtml(costs: StageCosts, scheduleCode: string | undefined): string {
  const title = `${escapeHtml(costs.generator ?? 'pipeline')}: ${formatMs(costs.predicted_runtime_ms)} predicted on ` +
    `${escapeHtml(costs.gpu_profile ?? '?')}${costs.stale ? ' (stale: the file changed since)' : ''}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<title>hlsched stage costs</title>
<style>
  body { font-family: var(--vscode-font-family, sans-serif); color: var(--vscode-foreground, #222); }
  .columns { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
  svg text { fill: var(--vscode-foreground, #222); font-size: 12px; }
  pre { background: var(--vscode-textCodeBlock-background, #f3f3f3); padding: 8px; font-size: 12px; }
</style></head>
<body>
<h2 id="title">${title}</h2>
<div class="columns">
  <section id="chart"><h3>Per-stage cost terms</h3>${stageBarsSvg(costs)}</section>
  <section id="schedule"><h3>Suggested schedule</h3><pre>${escapeHtml(scheduleCode ?? '(not available)')}</pre></section>
</div>
</body></html>`;
}
