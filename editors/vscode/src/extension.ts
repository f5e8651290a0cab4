// The hlsched extension: starts `hlsched serve` for C++ files that hold Halide generators and
// adds what plain LSP does not show: a status bar item, the stage-costs webview, and workspace
// trust. Hover, code actions, code lenses and diagnostics come from the server through
// vscode-languageclient.
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

import { stageCostsHtml, StageCosts } from './costsView';
import { DocumentStates } from './documentStates';
import { ServerLifecycle } from './serverLifecycle';
import { needsRestart, serverCommand, serverSettings } from './settings';
import { AnalysisFinished, StatusView, UNTRUSTED_STATUS, WorkDoneProgressValue } from './status';

let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const documents = new DocumentStates();
let server: ServerLifecycle<LanguageClient>;
let runningCommand = { command: '', args: [] as string[] };  // what the current server was started with

function configuration() {
  return vscode.workspace.getConfiguration('hlsched');
}

// The status bar follows the active editor's document.
function refreshStatus() {
  const document = vscode.window.activeTextEditor?.document;
  const view: StatusView | undefined = documents.status(
    document && { uri: document.uri.toString(), fileName: path.basename(document.fileName) },
    vscode.workspace.isTrusted, server?.current !== undefined);
  if (!view) return statusItem.hide();
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.show();
}

// Only generator files reach the server (DocumentStates decides), so that open/change/close stay
// consistent for the server.
function clientOptions(): LanguageClientOptions {
  const sent = (sendIt: boolean, next: () => Promise<void>) => {
    refreshStatus();
    return sendIt ? next() : Promise.resolve();
  };
  return {
    documentSelector: [
      { scheme: 'file', language: 'cpp' },
      { scheme: 'untitled', language: 'cpp' },
    ],
    initializationOptions: serverSettings(configuration(), vscode.workspace.isTrusted),
    outputChannel: output,
    middleware: {
      didOpen: (document, next) => sent(documents.opened(document.uri.toString(), document.getText()), () => next(document)),
      didChange: (event, next) => sent(documents.changed(event.document.uri.toString()), () => next(event)),
      didSave: (document, next) => sent(documents.has(document.uri.toString()), () => next(document)),
      didClose: (document, next) => sent(documents.closed(document.uri.toString()), () => next(document)),
      // VS Code shows the progress itself too; the status bar item names the phase.
      handleWorkDoneProgress: (token, params, next) => {
        next(token, params);
        documents.progress(token, params as WorkDoneProgressValue);
        refreshStatus();
      },
    },
  };
}

// A language client for `hlsched serve`, or none in an untrusted workspace.
function createClient(): LanguageClient | undefined {
  if (!vscode.workspace.isTrusted) return undefined;
  const { command, args } = (runningCommand = serverCommand(configuration()));
  // No `transport`: with TransportKind.stdio the client would append `--stdio`, which
  // `hlsched serve` rejects (it speaks LSP on stdio by default).
  const options: ServerOptions = { command, args };
  output.appendLine(`starting: ${command} ${args.join(' ')}`);
  const client = new LanguageClient('hlsched', 'hlsched', options, clientOptions());
  client.onNotification('hlsched/analysisFinished', (event: AnalysisFinished) => {
    if (!documents.analysisFinished(event)) return;
    output.appendLine(`analysis of ${event.uri} v${event.version}: ${event.status}` +
      (event.status === 'ok' ? `, ${event.predicted_runtime_ms} ms predicted` : `: ${event.message ?? ''}`) +
      ` (${(event.total_seconds ?? 0).toFixed(2)} s)`);
    refreshStatus();
  });
  return client;
}

function reportServerError(what: 'start' | 'stop', error: unknown) {
  const message = what === 'start'
    ? `hlsched: could not start "${serverCommand(configuration()).command}" (${error}). ` +
      'Set hlsched.serverPath to the hlsched executable.'
    : `hlsched: stopping the server failed (${error}).`;
  output.appendLine(message);
  if (what === 'start') vscode.window.showErrorMessage(message);
}

async function restartServer() {
  documents.clear();
  await server.restart();
  refreshStatus();
}

async function showStageCosts() {
  if (!vscode.workspace.isTrusted) {
    vscode.window.showWarningMessage(UNTRUSTED_STATUS.tooltip);
    return;
  }
  const document = vscode.window.activeTextEditor?.document;
  const client = server.current;
  if (!client || !document || !documents.has(document.uri.toString())) {
    vscode.window.showInformationMessage('hlsched: open a Halide generator first.');
    return;
  }
  const uri = document.uri.toString();
  try {
    const [costs, schedule] = await Promise.all([
      client.sendRequest<StageCosts>('hlsched/stageCosts', { uri }),
      client.sendRequest<{ schedule_code?: string }>('hlsched/schedule', { uri }),
    ]);
    const panel = vscode.window.createWebviewPanel('hlschedStageCosts', `Stage costs: ${path.basename(document.fileName)}`,
      vscode.ViewColumn.Beside, { enableScripts: false });
    panel.webview.html = stageCostsHtml(costs, schedule.schedule_code);
  } catch (error) {
    vscode.window.showErrorMessage(`hlsched: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function activate(context: vscode.ExtensionContext) {
  output = vscode.window.createOutputChannel('hlsched');
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  statusItem.command = 'hlsched.showStageCosts';
  server = new ServerLifecycle(createClient, reportServerError);
  context.subscriptions.push(output, statusItem);

  context.subscriptions.push(
    vscode.commands.registerCommand('hlsched.showStageCosts', showStageCosts),
    vscode.commands.registerCommand('hlsched.restartServer', restartServer),
    vscode.window.onDidChangeActiveTextEditor(refreshStatus),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      const client = server.current;
      if (!event.affectsConfiguration('hlsched') || !client) return;
      if (needsRestart(runningCommand, configuration())) {
        await restartServer();
      } else {
        client.sendNotification('workspace/didChangeConfiguration', {
          settings: { hlsched: serverSettings(configuration(), vscode.workspace.isTrusted) },
        });
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      output.appendLine('the workspace is trusted now: starting the server');
      await server.start();
      refreshStatus();
    }),
  );

  if (!vscode.workspace.isTrusted) {
    // Building a generator runs its code: nothing starts until the user trusts the workspace.
    output.appendLine('untrusted workspace: hlsched builds and runs nothing here');
    refreshStatus();
    vscode.window.showInformationMessage(
      'hlsched is off in this untrusted workspace: analyzing a Halide generator builds and runs its code. ' +
        'Trust the workspace to see predicted runtimes.');
    return;
  }
  await server.start();
  refreshStatus();
}

export async function deactivate() {
  await server?.stop();
  documents.clear();
}
