/**
 * A running n8n: one main process, plus one worker in queue mode (Redis); more workers can join. Each stack has its own
 * user folder, ports (editor, task brokers, worker health) and Bull prefix, so stacks never share state.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { N8nProcess } from './n8nProcess.ts';
import { e2eDir, type N8nHost } from './paths.ts';
import { freePorts } from './ports.ts';
import { testRedis } from '../../scripts/lib/testRedis.ts';

export type ExecutionsMode = 'regular' | 'queue';

export interface N8nStackOptions {
  /** Holds the n8n user folder (`.n8n/`) and the process logs. */
  dir: string;
  mode: ExecutionsMode;
  /** Editor/API port; a free one when absent. */
  port?: number;
  /** Keep it stable across restarts of the same user folder (credentials are encrypted with it). */
  encryptionKey?: string;
  redis?: { host: string; port: number };
  /** Extra variables for every process of the stack (they win over the defaults). */
  env?: Record<string, string>;
  /** Which n8n install and Node (default: the e2e's n8n 2.x under this Node). */
  host?: N8nHost;
}

/** Queue mode's Redis: the tests' shared one (TEST_REDIS_URL). */
export const defaultRedis = (({ host, port }) => ({ host, port }))(testRedis());

export class N8nStack {
  readonly baseUrl: string;
  readonly mode: ExecutionsMode;
  readonly userFolder: string;
  readonly main: N8nProcess;
  readonly worker: N8nProcess | undefined;
  /** Workers started later with `addWorker`. */
  readonly extraWorkers: N8nProcess[] = [];
  /** The variables every process of the stack gets (to start more workers alike). */
  private readonly shared: Record<string, string>;
  private readonly host: N8nHost | undefined;

  private constructor(
    baseUrl: string,
    mode: ExecutionsMode,
    userFolder: string,
    main: N8nProcess,
    worker: N8nProcess | undefined,
    shared: Record<string, string>,
    host: N8nHost | undefined,
  ) {
    this.baseUrl = baseUrl;
    this.mode = mode;
    this.userFolder = userFolder;
    this.main = main;
    this.worker = worker;
    this.shared = shared;
    this.host = host;
  }

  /** Every worker process (queue mode): the first, then those added. */
  get workers(): N8nProcess[] {
    return this.worker ? [this.worker, ...this.extraWorkers] : [];
  }

  /** Queue mode: starts one more worker on the same Redis queue; `env` adds variables (e.g. its concurrency). */
  async addWorker(env: Record<string, string> = {}): Promise<N8nProcess> {
    if (this.mode !== 'queue') throw new Error('Workers run in queue mode only');
    const [brokerPort, healthPort] = await freePorts(2);
    const name = `worker-${this.workers.length + 1}`;
    const worker = await N8nProcess.start({
      name,
      command: 'worker',
      env: {
        ...this.shared,
        N8N_RUNNERS_BROKER_PORT: String(brokerPort),
        QUEUE_HEALTH_CHECK_ACTIVE: 'true',
        QUEUE_HEALTH_CHECK_PORT: String(healthPort),
        N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
        ...env,
      },
      logFile: path.join(this.userFolder, `n8n-${name}.log`),
      healthUrl: `http://127.0.0.1:${healthPort}`,
      host: this.host,
    });
    this.extraWorkers.push(worker);
    return worker;
  }

  /** Stops a worker started with `addWorker`. */
  async removeWorker(worker: N8nProcess): Promise<void> {
    await worker.stop();
    this.extraWorkers.splice(this.extraWorkers.indexOf(worker), 1);
  }

  static async start(options: N8nStackOptions): Promise<N8nStack> {
    const [freeMainPort, mainBrokerPort, workerBrokerPort, workerHealthPort] = await freePorts(4);
    const port = options.port ?? freeMainPort;
    const baseUrl = `http://127.0.0.1:${port}`;
    mkdirSync(options.dir, { recursive: true });
    const shared: Record<string, string> = {
      N8N_USER_FOLDER: options.dir,
      N8N_ENCRYPTION_KEY: options.encryptionKey ?? randomBytes(24).toString('base64url'),
      N8N_PORT: String(port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_HOST: '127.0.0.1',
      N8N_PROTOCOL: 'http',
      // Hooks that a trigger registers must point back at this instance.
      N8N_WEBHOOK_URL: `${baseUrl}/`,
      N8N_EDITOR_BASE_URL: `${baseUrl}/`,
      // Plain http on loopback: the auth cookie must not require TLS.
      N8N_SECURE_COOKIE: 'false',
      N8N_DIAGNOSTICS_ENABLED: 'false',
      N8N_PERSONALIZATION_ENABLED: 'false',
      N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
      N8N_TEMPLATES_ENABLED: 'false',
      N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
      N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
      // No list of vetted community nodes from n8n's servers (the node creator would ask for it).
      N8N_VERIFIED_PACKAGES_ENABLED: 'false',
      // Modules that fetch from n8n's servers at start; these tests stay on loopback.
      N8N_DISABLED_MODULES: 'mcp-registry',
      N8N_DYNAMIC_BANNERS_ENABLED: 'false',
      N8N_PYTHON_ENABLED: 'false',
      N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
      N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
      N8N_LOG_LEVEL: 'info',
      N8N_LOG_OUTPUT: 'console',
      // SQLite waits up to 30 s for another process's write lock, not node-sqlite3's 1 s (sqliteBusyTimeout.cjs).
      NODE_OPTIONS: `--require ${JSON.stringify(path.join(e2eDir, 'lib', 'sqliteBusyTimeout.cjs'))}`,
    };
    const prefix = `n8n-e2e-${randomBytes(4).toString('hex')}`;
    if (options.mode === 'queue') {
      const redis = options.redis ?? defaultRedis;
      Object.assign(shared, {
        EXECUTIONS_MODE: 'queue',
        QUEUE_BULL_REDIS_HOST: redis.host,
        QUEUE_BULL_REDIS_PORT: String(redis.port),
        // A prefix of its own for the queue and n8n's cache: parallel runs and leftovers of earlier runs never
        // see each other's keys, and stop() removes them.
        QUEUE_BULL_PREFIX: prefix,
        N8N_REDIS_KEY_PREFIX: prefix,
      });
    }
    Object.assign(shared, options.env);

    const main = await N8nProcess.start({
      name: 'main',
      command: 'start',
      env: { ...shared, N8N_RUNNERS_BROKER_PORT: String(mainBrokerPort) },
      logFile: path.join(options.dir, 'n8n-main.log'),
      healthUrl: baseUrl,
      host: options.host,
    });
    if (options.mode === 'regular') return new N8nStack(baseUrl, options.mode, options.dir, main, undefined, shared, options.host);

    try {
      const worker = await N8nProcess.start({
        name: 'worker',
        command: 'worker',
        env: {
          ...shared,
          N8N_RUNNERS_BROKER_PORT: String(workerBrokerPort),
          QUEUE_HEALTH_CHECK_ACTIVE: 'true',
          QUEUE_HEALTH_CHECK_PORT: String(workerHealthPort),
          N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
        },
        logFile: path.join(options.dir, 'n8n-worker.log'),
        healthUrl: `http://127.0.0.1:${workerHealthPort}`,
        host: options.host,
      });
      return new N8nStack(baseUrl, options.mode, options.dir, main, worker, shared, options.host);
    } catch (error) {
      await main.stop();
      throw error;
    }
  }

  get processes(): N8nProcess[] {
    return [this.main, ...this.workers];
  }

  /** The last lines of every process, for a failure message. */
  logReport(lines = 60): string {
    return this.processes.map((process) => process.tailReport(lines)).join('\n');
  }

  async stop(): Promise<void> {
    // Workers first: they finish their jobs while main still accepts their results.
    for (const worker of [...this.extraWorkers].reverse()) await worker.stop();
    if (this.worker) await this.worker.stop();
    await this.main.stop();
    if (this.mode === 'queue') await this.forgetRedisKeys();
  }

  /** Removes the keys this stack's queue and cache left in Redis (all under its own prefix). */
  private async forgetRedisKeys(): Promise<void> {
    const prefix = this.shared.QUEUE_BULL_PREFIX;
    const redis = new Redis({ host: this.shared.QUEUE_BULL_REDIS_HOST, port: Number(this.shared.QUEUE_BULL_REDIS_PORT), lazyConnect: true });
    try {
      await redis.connect();
      for (const pattern of [`${prefix}:*`, `{${prefix}:*`]) {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
          if (keys.length > 0) await redis.unlink(...keys);
          cursor = next;
        } while (cursor !== '0');
      }
    } finally {
      redis.disconnect();
    }
  }
}
