// The extension's settings as the server reads them. The VS Code setting `hlsched.NAME` is the
// server setting `NAME` (server/src/lsp/server_settings.h): one name means one thing everywhere.
// No `vscode` import: the node tests use this module against the real server.

/** The server settings the extension exposes, by their server names. */
export const SERVER_SETTING_NAMES = [
  'gpu_profile',
  'work_budget',
  'time_budget_s',
  'timeout',
  'strategy',
  'beam_size',
  'passes',
  'model',
  'weights',
  'seed',
  'memory_limit_mb',
  'generator',
  'params',
  'compile_flags',
  'debounce_ms',
] as const;

/** The part of vscode.WorkspaceConfiguration that is read here. */
export interface ConfigurationReader {
  get<T>(key: string): T | undefined;
}

/**
 * initializationOptions / didChangeConfiguration settings from the `hlsched` configuration
 * section. `trusted` is VS Code's workspace trust: false tells the server to build and run
 * nothing (the extension does not even start it then; other clients rely on the setting).
 */
export function serverSettings(config: ConfigurationReader, trusted: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const name of SERVER_SETTING_NAMES) {
    const value = config.get<unknown>(name);
    if (value !== undefined && value !== null) settings[name] = value;
  }
  settings.trusted = trusted;
  return settings;
}

/** How to start the server: `hlsched.serverPath serve hlsched.serverArgs...` over stdio. */
export function serverCommand(config: ConfigurationReader): { command: string; args: string[] } {
  const command = config.get<string>('serverPath') || 'hlsched';
  const extra = config.get<string[]>('serverArgs') ?? [];
  return { command, args: ['serve', ...extra] };
}

/**
 * True when the server must be restarted for a settings change (not just told about it): the
 * command it would be started with now differs from the one it runs. VS Code also reports the
 * restricted settings (hlsched.serverPath) as changed when the workspace becomes trusted, with
 * the same values: no restart then.
 */
export function needsRestart(running: { command: string; args: string[] }, config: ConfigurationReader): boolean {
  const wanted = serverCommand(config);
  return wanted.command !== running.command || JSON.stringify(wanted.args) !== JSON.stringify(running.args);
}
