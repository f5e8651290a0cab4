// Starting, stopping and restarting the language server one step at a time. VS Code asks for
// these from several events that can overlap: granting workspace trust both fires the trust event
// (start) and applies the restricted settings such as hlsched.serverPath (restart), and
// vscode-languageclient refuses to stop a client that is still starting. Each request waits for
// the ones before it, so a stop always sees a finished start. No `vscode` import: the node tests
// drive it with stand-in servers.

/** What is started and stopped: a vscode-languageclient LanguageClient, in the extension. */
export interface StartableServer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export class ServerLifecycle<Server extends StartableServer> {
  private server: Server | undefined;
  private queue: Promise<void> = Promise.resolve();

  /**
   * `create` makes a server to start, or returns undefined when none may run (an untrusted
   * workspace); `reportError` hears of a start or stop that failed.
   */
  constructor(
    private readonly create: () => Server | undefined,
    private readonly reportError: (what: 'start' | 'stop', error: unknown) => void,
  ) {}

  /** The server from its start on (while it starts too); undefined when stopped or its start failed. */
  get current(): Server | undefined {
    return this.server;
  }

  /** Starts a server unless one runs. */
  start(): Promise<void> {
    return this.enqueue(() => this.startNow());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async startNow() {
    if (this.server) return;
    const server = this.create();
    if (!server) return;
    this.server = server;
    try {
      await server.start();
    } catch (error) {
      if (this.server === server) this.server = undefined;
      this.reportError('start', error);
    }
  }

  private async stopNow() {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    try {
      await server.stop();
    } catch (error) {
      this.reportError('stop', error);
    }
  }
}
