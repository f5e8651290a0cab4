// The hlsched extension: starts `hlsched serve` for C++ files that hold Halide generators and
// adds what plain LSP does not show: a status bar item, the stage-costs webview, and workspace
// trust. Hover, code actions, code lenses and diagnostics come from the server through
// vscode-languageclient.
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

import { stageCostsHtml, StageCosts } from './costsView';
import { isHalideGenerator } from './generator';
import { needsRestart, serverCommand, serverSettings } from './settings';
import {
  AnalysisFinished, analyzingStatus, finishedStatus, progressStatus, StatusView, UNTRUSTED_STATUS, WorkDoneProgressValue,
} from './status';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const lastAnalysis = new Map<string, AnalysisFinished>();
const analyzing = new Set<string>();
// The server's latest work-done progress (its reports name the phase, not the document).
let latestProgress: StatusView | undefined;
const progressTitles = new Map<string | number, string>();

function configuration() {
  return vscode.workspace.getConfiguration('hlsched');
}

function showStatus(view: StatusView) {
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.show();
}

// The status bar follows the active editor's document.
function refreshStatus() {
  if (!vscode.workspace.isTrusted) return showStatus(UNTRUSTED_STATUS);
  const document = vscode.window.activeTextEditor?.document;
  if (!document || !client) return statusItem.hide();
  const uri = document.uri.toString();
  if (analyzing.has(uri)) return showStatus(latestProgress ?? analyzingStatus(path.basename(document.fileName)));
  const last = lastAnalysis.get(uri);
  if (last) showStatus(finishedStatus(last));
  else statusItem.hide();
}

// Only generator files reach the server; the same set is used for every later notification so
// that open/change/close stay consistent for the server.
const sentToServer = new Set<string>();

function clientOptions(): LanguageClientOptions {
  const mark = (document: vscode.TextDocument) => {
    analyzing.add(document.uri.toString());
    refreshStatus();
  };
  return {
    documentSelector: [
      { scheme: 'file', language: 'cpp' },
      { scheme: 'untitled', language: 'cpp' },
    ],
    initializationOptions: serverSettings(configuration(), vscode.workspace.isTrusted),
    outputChannel: output,
    middleware: {
      didOpen: (document, next) => {
        if (!isHalideGenerator(document.getText())) return Promise.resolve();
        sentToServer.add(document.uri.toString());
        mark(document);
        return next(document);
      },
      didChange: (event, next) => {
        if (!sentToServer.has(event.document.uri.toString())) return Promise.resolve();
        mark(event.document);
        return next(event);
      },
      didSave: (document, next) => (sentToServer.has(document.uri.toString()) ? next(document) : Promise.resolve()),
      didClose: (document, next) => {
        if (!sentToServer.delete(document.uri.toString())) return Promise.resolve();
        return next(document);
      },
      // VS Code shows the progress itself too; the status bar item names the phase.
      handleWorkDoneProgress: (token, params, next) => {
        next(token, params);
        const value = params as WorkDoneProgressValue;
        if (value.kind === 'begin' && value.title) progressTitles.set(token, value.title);
        latestProgress = progressStatus(value, progressTitles.get(token));
        if (value.kind === 'end') progressTitles.delete(token);
        refreshStatus();
      },
    },
  };
}

async function startServer(context: vscode.ExtensionContext) {
  if (client || !vscode.workspace.isTrusted) return;
  const { command, args } = serverCommand(configuration());
  // No `transport`: with TransportKind.stdio the client would append `--stdio`, which
  // `hlsched serve` rejects (it speaks LSP on stdio by default).
  const server: ServerOptions = { command, args };
  output.appendLine(`starting: ${command} ${args.join(' ')}`);
  client = new LanguageClient('hlsched', 'hlsched', server, clientOptions());
  client.onNotification('hlsched/analysisFinished', (event: AnalysisFinished) => {
    if (event.status === 'cancelled') return;
    analyzing.delete(event.uri);
    lastAnalysis.set(event.uri, event);
    output.appendLine(`analysis of ${event.uri} v${event.version}: ${event.status}` +
      (event.status === 'ok' ? `, ${event.predicted_runtime_ms} ms predicted` : `: ${event.message ?? ''}`) +
      ` (${(event.total_seconds ?? 0).toFixed(2)} s)`);
    refreshStatus();
  });
  try {
    await client.start();
  } catch (error) {
    const message = `hlsched: could not start "${command}" (${error}). Set hlsched.serverPath to the hlsched executable.`;
    output.appendLine(message);
    vscode.window.showErrorMessage(message);
    client = undefined;
  }
  refreshStatus();
}

async function stopServer() {
  const running = client;
  client = undefined;
  sentToServer.clear();
  analyzing.clear();
  lastAnalysis.clear();
  if (running) await running.stop();
}

async function showStageCosts(context: vscode.ExtensionContext) {
  if (!vscode.workspace.isTrusted) {
    vscode.window.showWarningMessage(UNTRUSTED_STATUS.tooltip);
    return;
  }
  const document = vscode.window.activeTextEditor?.document;
  if (!client || !document || !sentToServer.has(document.uri.toString())) {
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
  context.subscriptions.push(output, statusItem);

  context.subscriptions.push(
    vscode.commands.registerCommand('hlsched.showStageCosts', () => showStageCosts(context)),
    vscode.commands.registerCommand('hlsched.restartServer', async () => {
      await stopServer();
      await startServer(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(refreshStatus),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('hlsched') || !client) return;
      if (needsRestart((key) => event.affectsConfiguration(key))) {
        await stopServer();
        await startServer(context);
      } else {
        client.sendNotification('workspace/didChangeConfiguration', {
          settings: { hlsched: serverSettings(configuration(), vscode.workspace.isTrusted) },
        });
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.appendLine('the workspace is trusted now: starting the server');
      startServer(context);
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
  await startServer(context);
}

export async function deactivate() {
  await stopServer();
}
