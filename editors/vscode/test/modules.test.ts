// Node tests of the extension's modules against the real daemon, spoken to through
// vscode-jsonrpc (the library under vscode-languageclient). Run by ctest (tests/editors) with
//   HLSCHED_BINARY  the hlsched executable   HLSCHED_CACHE  the build cache   HLSCHED_WORK  a scratch folder
// Every wait is on a message from the server, with a generous limit (a cold build takes minutes).
import { ChildProcess, spawn } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';

import { escapeHtml, stageCostsHtml, StageCosts, termNames } from '../src/costsView';
import { isHalideGenerator } from '../src/generator';
import { needsRestart, serverCommand, serverSettings, SERVER_SETTING_NAMES } from '../src/settings';
import { AnalysisFinished, finishedStatus, progressStatus, WorkDoneProgressValue } from '../src/status';

const repo = path.resolve(__dirname, '../../../..');
const binary = process.env.HLSCHED_BINARY ?? path.join(repo, 'build/bin/hlsched');
const cache = process.env.HLSCHED_CACHE ?? path.join(repo, 'build/tests/e2e-cache');
const work = process.env.HLSCHED_WORK ?? fs.mkdtempSync('/tmp/hlsched-vscode-test-');
const ANALYSIS_TIMEOUT_MS = 600_000;

// A configuration as VS Code would hand it over: the package.json defaults, then overrides.
function configuration(overrides: Record<string, unknown>) {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries<any>(manifest.contributes.configuration.properties))
    values[key.replace(/^hlsched\./, '')] = spec.default;
  Object.assign(values, overrides);
  return { get: <T>(key: string) => values[key] as T | undefined };
}

class Server {
  readonly process: ChildProcess;
  readonly connection: MessageConnection;
  private readonly finished: AnalysisFinished[] = [];
  /** Status bar texts that the server's $/progress would show, in order. */
  readonly progressTexts: string[] = [];
  private readonly waiters: Array<() => void> = [];

  constructor() {
    const { command, args } = serverCommand(configuration({ serverPath: binary, serverArgs: ['--cache-dir', cache] }));
    this.process = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.connection = createMessageConnection(new StreamMessageReader(this.process.stdout!),
                                              new StreamMessageWriter(this.process.stdin!));
    this.connection.onNotification('hlsched/analysisFinished', (event: AnalysisFinished) => {
      this.finished.push(event);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onNotification('$/progress', (params: { token: string | number; value: WorkDoneProgressValue }) => {
      const view = progressStatus(params.value, undefined);
      if (view) this.progressTexts.push(view.text);
    });
    this.connection.listen();
  }

  /** The first analysisFinished of `uri` that is not a cancelled one. */
  analysis(uri: string): Promise<AnalysisFinished> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no analysis of ${uri}`)), ANALYSIS_TIMEOUT_MS);
      const look = () => {
        const found = this.finished.find((e) => e.uri === uri && e.status !== 'cancelled');
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else {
          this.waiters.push(look);
        }
      };
      look();
    });
  }

  open(file: string): string {
    const uri = `file://${file}`;
    this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'cpp', version: 1, text: fs.readFileSync(file, 'utf8') },
    });
    return uri;
  }

  /** shutdown + exit; a server that is already gone is only reaped (the test reports why). */
  async stop() {
    const exited = new Promise<void>((resolve) =>
      this.process.exitCode !== null || this.process.signalCode !== null ? resolve() : this.process.on('exit', () => resolve()));
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      this.process.kill('SIGKILL');
    }
    await exited;
    this.connection.dispose();
  }
}

function copyExample(name: string): string {
  fs.mkdirSync(work, { recursive: true });
  const file = path.join(work, name);
  fs.copyFileSync(path.join(repo, 'examples/blur/blur_generator.cpp'), file);
  return file;
}

test('settings: the extension contributes exactly the server settings, by the server names', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
  const contributed = Object.keys(manifest.contributes.configuration.properties)
    .map((key) => key.replace(/^hlsched\./, ''))
    .filter((name) => name !== 'serverPath' && name !== 'serverArgs');
  assert.deepEqual(contributed.sort(), [...SERVER_SETTING_NAMES].sort());
  const running = serverCommand(configuration({ serverPath: '/opt/hlsched', serverArgs: ['--cache-dir', '/c'] }));
  assert.equal(needsRestart(running, configuration({ serverPath: '/opt/hlsched', serverArgs: ['--cache-dir', '/c'] })), false);
  assert.equal(needsRestart(running, configuration({ serverPath: '/usr/bin/hlsched', serverArgs: ['--cache-dir', '/c'] })), true);
  assert.equal(needsRestart(running, configuration({ serverPath: '/opt/hlsched', serverArgs: [] })), true);
  assert.equal(needsRestart(running, configuration({ serverPath: '/opt/hlsched', serverArgs: ['--cache-dir', '/c'], gpu_profile: 'a100' })), false);
});

test('generator detection', () => {
  assert.equal(isHalideGenerator(fs.readFileSync(path.join(repo, 'examples/blur/blur_generator.cpp'), 'utf8')), true);
  assert.equal(isHalideGenerator('#include <vector>\nint main() { return 0; }\n'), false);
});

test('costs view: escapes and stacks', () => {
  const costs: StageCosts = {
    generator: 'g<1>', gpu_profile: 'h200', predicted_runtime_ms: 3,
    stages: [{ func: 'a', stage: 0, predicted_ms: 2, terms: { compute: 1.5, launch: 0.5 } },
             { func: 'b', stage: 0, predicted_ms: 1, terms: { compute: 0, global_memory: 1 } }],
  };
  const html = stageCostsHtml(costs, 'a.compute_root(); // <x>');
  assert.match(html, /g&lt;1&gt;: 3\.00 ms predicted on h200/);
  assert.equal((html.match(/class="term"/g) ?? []).length, 3);  // zero terms draw nothing
  assert.ok(html.includes(escapeHtml('a.compute_root(); // <x>')));
  assert.deepEqual(termNames(costs.stages), ['compute', 'global_memory', 'launch']);
});

test('against the real daemon: settings, analysis, status bar, stage-costs view', { timeout: ANALYSIS_TIMEOUT_MS * 2 }, async () => {
  const server = new Server();
  try {
    const settings = serverSettings(configuration({ time_budget_s: 2, gpu_profile: 'a100' }), true);
    const init: any = await server.connection.sendRequest('initialize', {
      processId: process.pid, rootUri: null, capabilities: { window: { workDoneProgress: true } },
      initializationOptions: settings,
    });
    server.connection.sendNotification('initialized', {});
    // The server took every setting under the name the extension sent it by.
    const effective = init.capabilities.experimental.hlsched.settings;
    for (const [name, value] of Object.entries(settings)) assert.deepEqual(effective[name], value, name);

    const uri = server.open(copyExample('blur_generator.cpp'));
    const event = await server.analysis(uri);
    assert.equal(event.status, 'ok', JSON.stringify(event));
    // The status bar's progress, from the server's own $/progress (sent before analysisFinished).
    assert.ok(server.progressTexts.includes('$(sync~spin) hlsched: building the generator'), server.progressTexts.join(' / '));
    const status = finishedStatus(event);
    assert.match(status.text, /^\$\(dashboard\) hlsched: [0-9.]+ (ms|us)$/);

    const costs = await server.connection.sendRequest<StageCosts>('hlsched/stageCosts', { uri });
    const schedule = await server.connection.sendRequest<{ schedule_code: string }>('hlsched/schedule', { uri });
    assert.equal(costs.gpu_profile, 'a100');
    assert.ok(costs.stages.length > 0);
    const html = stageCostsHtml(costs, schedule.schedule_code);
    fs.writeFileSync(path.join(work, 'stage_costs.html'), html);
    for (const stage of costs.stages) assert.ok(html.includes(`data-stage="${escapeHtml(stage.func)}"`), stage.func);
    const drawn = costs.stages.reduce((n, s) => n + Object.values(s.terms ?? {}).filter((v) => v > 0).length, 0);
    assert.equal((html.match(/class="term"/g) ?? []).length, drawn);
    assert.ok(schedule.schedule_code.length > 0 && html.includes(escapeHtml(schedule.schedule_code)));
  } finally {
    await server.stop();
  }
});

test('against the real daemon: an untrusted workspace builds and runs nothing', { timeout: ANALYSIS_TIMEOUT_MS }, async () => {
  const server = new Server();
  try {
    await server.connection.sendRequest('initialize', {
      processId: process.pid, rootUri: null, capabilities: {},
      initializationOptions: serverSettings(configuration({}), false),
    });
    server.connection.sendNotification('initialized', {});
    const uri = server.open(copyExample('untrusted_blur_generator.cpp'));
    const event = await server.analysis(uri);
    assert.equal(event.status, 'user_error');
    assert.equal(event.error_kind, 'untrusted');
    assert.equal(event.build_seconds, 0);
    assert.match(finishedStatus(event).tooltip, /untrusted workspace/);
    await assert.rejects(server.connection.sendRequest('hlsched/schedule', { uri }), /not trusted/);
  } finally {
    await server.stop();
  }
});
