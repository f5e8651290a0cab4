// Node tests of what extension.ts does between VS Code and the server, less the `vscode` calls:
// which documents reach the server and what the status bar shows (DocumentStates), and starting,
// stopping and restarting the server one step at a time (ServerLifecycle), with stand-in servers.
// The end-to-end test (tests/editors/vscode_e2e) covers the same glue in a real VS Code, on the
// happy path; these cover the orders of events it cannot produce on demand.
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';

import { DocumentStates } from '../src/documentStates';
import { ServerLifecycle, StartableServer } from '../src/serverLifecycle';
import { AnalysisFinished, UNTRUSTED_STATUS } from '../src/status';

const repo = path.resolve(__dirname, '../../../..');
const generatorText = fs.readFileSync(path.join(repo, 'examples/blur/blur_generator.cpp'), 'utf8');
const GEN = 'file:///w/blur_generator.cpp';
const PLAIN = 'file:///w/main.cpp';
const genDocument = { uri: GEN, fileName: 'blur_generator.cpp' };

function finished(overrides: Partial<AnalysisFinished>): AnalysisFinished {
  return { uri: GEN, version: 1, status: 'ok', current: true, predicted_runtime_ms: 0.0092, total_seconds: 1.5, ...overrides };
}

test('documents: only generators reach the server, and open/change/save/close agree', () => {
  const states = new DocumentStates();
  assert.equal(states.opened(PLAIN, '#include <vector>\nint main() {}\n'), false);
  assert.equal(states.changed(PLAIN), false);
  assert.equal(states.has(PLAIN), false);
  assert.equal(states.closed(PLAIN), false);

  assert.equal(states.opened(GEN, generatorText), true);
  assert.equal(states.changed(GEN), true);
  assert.equal(states.has(GEN), true);
  assert.equal(states.closed(GEN), true);
  assert.equal(states.changed(GEN), false, 'a closed document is not the server\'s any more');
  assert.equal(states.closed(GEN), false);
});

test('status bar: analyzing, the server\'s progress, the result; cancelled analyses ignored', () => {
  const states = new DocumentStates();
  assert.equal(states.status(genDocument, true, true), undefined, 'nothing known yet: hidden');
  states.opened(GEN, generatorText);
  assert.match(states.status(genDocument, true, true)!.tooltip, /building and scheduling blur_generator\.cpp/);

  states.progress('t1', { kind: 'begin', title: 'hlsched: blur_generator.cpp', message: 'building the generator' });
  assert.equal(states.status(genDocument, true, true)!.text, '$(sync~spin) hlsched: building the generator');
  states.progress('t1', { kind: 'report', message: 'searching for a schedule' });
  const searching = states.status(genDocument, true, true)!;
  assert.equal(searching.text, '$(sync~spin) hlsched: searching for a schedule');
  assert.match(searching.tooltip, /^hlsched: blur_generator\.cpp: searching/, 'the begin\'s title stays');

  assert.equal(states.analysisFinished(finished({ status: 'cancelled' })), false);
  assert.match(states.status(genDocument, true, true)!.text, /sync~spin/, 'still analyzing after a cancelled one');
  states.progress('t1', { kind: 'end' });
  assert.equal(states.analysisFinished(finished({})), true);
  assert.equal(states.status(genDocument, true, true)!.text, '$(dashboard) hlsched: 9.2 us');

  // An edit: analyzing again until its result.
  states.changed(GEN);
  assert.match(states.status(genDocument, true, true)!.text, /sync~spin/);
  states.analysisFinished(finished({ version: 2, status: 'build_failed', message: 'error: expected ;' }));
  assert.deepEqual(states.status(genDocument, true, true), { text: '$(warning) hlsched: build failed', tooltip: 'error: expected ;' });

  // Another document, or none: hidden.
  assert.equal(states.status({ uri: PLAIN, fileName: 'main.cpp' }, true, true), undefined);
  assert.equal(states.status(undefined, true, true), undefined);
});

test('status bar: untrusted says so whatever the editor; no server hides it; a restart forgets', () => {
  const states = new DocumentStates();
  states.opened(GEN, generatorText);
  states.analysisFinished(finished({}));
  assert.deepEqual(states.status(genDocument, false, false), UNTRUSTED_STATUS);
  assert.deepEqual(states.status(undefined, false, false), UNTRUSTED_STATUS);
  assert.equal(states.status(genDocument, true, false), undefined, 'no server: hidden');
  states.clear();
  assert.equal(states.status(genDocument, true, true), undefined);
  assert.equal(states.has(GEN), false, 'the new server gets didOpen again');
});

// A stand-in server whose start and stop finish when the test says so, logging what happens.
class FakeServer implements StartableServer {
  private finishStart: (() => void) | undefined;
  constructor(readonly id: number, private readonly events: string[], private readonly failStart = false,
              private readonly failStop = false) {}
  start(): Promise<void> {
    this.events.push(`start ${this.id}`);
    return new Promise((resolve, reject) => {
      this.finishStart = () => {
        this.events.push(`started ${this.id}`);
        if (this.failStart) reject(new Error(`cannot start ${this.id}`));
        else resolve();
      };
    });
  }
  releaseStart() {
    this.finishStart?.();
  }
  async stop(): Promise<void> {
    this.events.push(`stop ${this.id}`);
    if (this.failStop) throw new Error(`cannot stop ${this.id}`);
  }
}

function lifecycle(options: { trusted?: () => boolean; failStart?: (id: number) => boolean; failStop?: boolean } = {}) {
  const events: string[] = [];
  const errors: string[] = [];
  const servers: FakeServer[] = [];
  const life = new ServerLifecycle<FakeServer>(() => {
    if (options.trusted && !options.trusted()) return undefined;
    const server = new FakeServer(servers.length + 1, events, options.failStart?.(servers.length + 1), options.failStop);
    servers.push(server);
    return server;
  }, (what, error) => errors.push(`${what}: ${(error as Error).message}`));
  return { life, events, errors, servers };
}

// Lets queued promise callbacks run.
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('lifecycle: a stop while the server starts waits for the start (VS Code\'s client refuses to stop a starting one)', async () => {
  const { life, events, servers } = lifecycle();
  const started = life.start();
  const stopped = life.stop();
  await settle();
  assert.deepEqual(events, ['start 1']);
  assert.equal(life.current, servers[0], 'the server counts as current while it starts');
  servers[0].releaseStart();
  await Promise.all([started, stopped]);
  assert.deepEqual(events, ['start 1', 'started 1', 'stop 1']);
  assert.equal(life.current, undefined);
});

test('lifecycle: trust granted (start) and a settings change (restart) at once: one server at a time, the last one runs', async () => {
  const { life, events, servers } = lifecycle();
  const both = Promise.all([life.start(), life.restart()]);
  await settle();
  servers[0].releaseStart();
  await settle();
  await settle();
  servers[1].releaseStart();
  await both;
  assert.deepEqual(events, ['start 1', 'started 1', 'stop 1', 'start 2', 'started 2']);
  assert.equal(life.current, servers[1]);
  await life.start();
  assert.equal(servers.length, 2, 'start is a no-op while a server runs');
});

test('lifecycle: an untrusted workspace creates no server; trust later does', async () => {
  let trusted = false;
  const { life, servers } = lifecycle({ trusted: () => trusted });
  await life.start();
  await life.restart();
  assert.equal(servers.length, 0);
  assert.equal(life.current, undefined);
  trusted = true;
  const started = life.start();
  await settle();
  servers[0].releaseStart();
  await started;
  assert.equal(life.current, servers[0]);
});

test('lifecycle: a failed start is reported and leaves no server; a failed stop does not block the next start', async () => {
  const { life, errors, servers } = lifecycle({ failStart: (id) => id === 1, failStop: true });
  const first = life.start();
  await settle();
  servers[0].releaseStart();
  await first;
  assert.deepEqual(errors, ['start: cannot start 1']);
  assert.equal(life.current, undefined);

  const second = life.start();
  await settle();
  servers[1].releaseStart();
  await second;
  assert.equal(life.current, servers[1]);
  const restarted = life.restart();
  await settle();
  servers[2].releaseStart();
  await restarted;
  assert.deepEqual(errors, ['start: cannot start 1', 'stop: cannot stop 2']);
  assert.equal(life.current, servers[2]);
});
