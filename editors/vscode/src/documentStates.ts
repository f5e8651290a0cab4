// What the extension knows of each document: whether the server has it (only Halide generators
// go to the server, and open/change/save/close must then agree), whether it is being analyzed,
// its last analysis, and the server's latest work-done progress; and from that, what the status
// bar shows. No `vscode` import: the node tests drive it as the middleware would.
import { isHalideGenerator } from './generator';
import {
  AnalysisFinished, analyzingStatus, finishedStatus, progressStatus, StatusView, UNTRUSTED_STATUS, WorkDoneProgressValue,
} from './status';

export class DocumentStates {
  private readonly sentToServer = new Set<string>();
  private readonly analyzing = new Set<string>();
  private readonly lastAnalysis = new Map<string, AnalysisFinished>();
  // The server's progress reports name the phase, not the document.
  private latestProgress: StatusView | undefined;
  private readonly progressTitles = new Map<string | number, string>();

  /** didOpen: true when the document goes to the server (it holds a generator). */
  opened(uri: string, text: string): boolean {
    if (!isHalideGenerator(text)) return false;
    this.sentToServer.add(uri);
    this.analyzing.add(uri);
    return true;
  }

  /** didChange: true when the server has the document (it analyzes it again). */
  changed(uri: string): boolean {
    if (!this.sentToServer.has(uri)) return false;
    this.analyzing.add(uri);
    return true;
  }

  /** didSave, requests: true when the server has the document. */
  has(uri: string): boolean {
    return this.sentToServer.has(uri);
  }

  /** didClose: true when the server had the document. */
  closed(uri: string): boolean {
    this.analyzing.delete(uri);
    this.lastAnalysis.delete(uri);
    return this.sentToServer.delete(uri);
  }

  /** hlsched/analysisFinished: false for a cancelled analysis (a newer one follows). */
  analysisFinished(event: AnalysisFinished): boolean {
    if (event.status === 'cancelled') return false;
    this.analyzing.delete(event.uri);
    this.lastAnalysis.set(event.uri, event);
    return true;
  }

  /** $/progress of the server's work-done progress. */
  progress(token: string | number, value: WorkDoneProgressValue) {
    if (value.kind === 'begin' && value.title) this.progressTitles.set(token, value.title);
    this.latestProgress = progressStatus(value, this.progressTitles.get(token));
    if (value.kind === 'end') this.progressTitles.delete(token);
  }

  /** Forgets everything (the server stopped). */
  clear() {
    this.sentToServer.clear();
    this.analyzing.clear();
    this.lastAnalysis.clear();
    this.progressTitles.clear();
    this.latestProgress = undefined;
  }

  /**
   * The status bar for the active editor's document (`uri`, `fileName`), or undefined to hide
   * it: there is no server, or the document is not a generator.
   */
  status(document: { uri: string; fileName: string } | undefined, trusted: boolean, serverRunning: boolean):
      StatusView | undefined {
    if (!trusted) return UNTRUSTED_STATUS;
    if (!document || !serverRunning) return undefined;
    if (this.analyzing.has(document.uri)) return this.latestProgress ?? analyzingStatus(document.fileName);
    const last = this.lastAnalysis.get(document.uri);
    return last ? finishedStatus(last) : undefined;
  }
}
