// The status bar item's text: the predicted runtime of the active generator, or what the server
// is doing. Pure functions of the server's hlsched/analysisFinished notifications.

/** The params of hlsched/analysisFinished (server/src/lsp/language_server.cpp). */
export interface AnalysisFinished {
  uri: string;
  version: number;
  status: string;
  error_kind?: string;
  current: boolean;
  predicted_runtime_ms: number;
  build_seconds?: number;
  total_seconds?: number;
  message?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

/** "0.12 ms", "1.50 ms", "180 ms", "12.3 us". */
export function formatMs(ms: number): string {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} us`;
}

export function analyzingStatus(fileName: string): StatusView {
  return { text: '$(sync~spin) hlsched', tooltip: `hlsched: building and scheduling ${fileName}` };
}

export const UNTRUSTED_STATUS: StatusView = {
  text: '$(shield) hlsched: off',
  tooltip:
    'hlsched builds and runs the generator code it analyzes, so it does nothing in an untrusted workspace. ' +
    'Trust the workspace to see predicted runtimes.',
};

export function finishedStatus(event: AnalysisFinished): StatusView {
  if (event.status === 'ok') {
    const timing = event.total_seconds !== undefined ? ` (analysis ${event.total_seconds.toFixed(1)} s)` : '';
    return {
      text: `$(dashboard) hlsched: ${formatMs(event.predicted_runtime_ms)}`,
      tooltip: `Predicted GPU runtime with the suggested schedule${timing}. Click for the stage costs.`,
    };
  }
  if (event.error_kind === 'untrusted') return UNTRUSTED_STATUS;
  return { text: `$(warning) hlsched: ${event.status.replace(/_/g, ' ')}`, tooltip: event.message ?? event.status };
}

/** The value of a $/progress notification (LSP work-done progress). */
export interface WorkDoneProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

/**
 * The status bar while the server works: its progress message ("building the generator",
 * "searching for a schedule") under the begin's title ("hlsched: blur_generator.cpp").
 * Undefined at the end: the analysis's result replaces it.
 */
export function progressStatus(value: WorkDoneProgressValue, title: string | undefined): StatusView | undefined {
  if (value.kind === 'end') return undefined;
  const message = value.message ?? 'working';
  return { text: `$(sync~spin) hlsched: ${message}`, tooltip: `${value.title ?? title ?? 'hlsched'}: ${message}` };
}
