/**
 * A running n8n: one main process, plus in queue mode (Redis) workers and optionally `n8n webhook` processes behind a
 * round-robin balancer (balancer.ts), n8n's production topology. Each stack has its own user folder, database (a
 * SQLite file in the user folder, or a PostgreSQL database of its own), ports (editor, task brokers, worker health,
 * webhook processes, balancer) and Bull/Redis prefix, so stacks never share state; stop() removes the database and
 * the Redis keys.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Balancer } from './balancer.ts';
import { N8nProcess, type N8nProcessOptions } from './n8nProcess.ts';
import { e2eDir, type N8nHost } from './paths.ts';
import { freePorts } from './ports.ts';
import { PostgresDatabase } from './postgres.ts';
import { StallingProxy } from './stallingProxy.ts';
import { testRedis } from '../../test/support/testRedis.ts';

export type ExecutionsMode = 'regular' | 'queue';

export interface N8nStackOptions {
	/** Holds the n8n user folder (`.n8n/`) and the process logs. */
	dir: string;
	mode: ExecutionsMode;
	/** Editor/API port of main; a free one when absent. */
	port?: number;
	/** Keep it stable across restarts of the same user folder (credentials are encrypted with it). */
	encryptionKey?: string;
	redis?: { host: string; port: number };
	/** `sqlite` (default): a file in the user folder. `postgres`: a database of its own (postgres.ts), dropped by stop(). */
	database?: 'sqlite' | 'postgres';
	/**
	 * With `postgres`: every process reaches the database through a proxy that can hold the database's replies for a
	 * while (stallingProxy.ts; no stalls until `databaseProxy.stall()` turns them on).
	 */
	stallingDatabase?: boolean;
	/** Queue mode: the workers that start with the stack (default 1). */
	workers?: number;
	/**
	 * Queue mode: `n8n webhook` processes (default 0). With any, main takes no production webhooks
	 * (N8N_DISABLE_PRODUCTION_MAIN_PROCESS) and a balancer in front of them all becomes the stack's address.
	 */
	webhookProcesses?: number;
	/** Extra variables for every process of the stack (they win over the defaults). */
	env?: Record<string, string>;
	/** Which n8n install and Node (default: the e2e's n8n 2.x under this Node). */
	host?: N8nHost;
}

/** Queue mode's Redis: the tests' shared one (TEST_REDIS_URL). */
export const defaultRedis = (({ host, port }) => ({ host, port }))(testRedis());

/** A worker's own variables: its task broker and its health server (the readiness check asks that one). */
async function workerOptions(
	dir: string,
	name: string,
	shared: Record<string, string>,
	host: N8nHost | undefined,
	env: Record<string, string> = {},
): Promise<N8nProcessOptions> {
	const [brokerPort, healthPort] = await freePorts(2);
	return {
		name,
		command: 'worker',
		env: {
			...shared,
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...env,
		},
		logFile: path.join(dir, `n8n-${name}.log`),
		healthUrl: `http://127.0.0.1:${healthPort}`,
		host,
	};
}

/**
 * Starts every process; when one fails, stops those that did start and rethrows. Workers and webhook processes start
 * side by side once main is up (main alone migrates the database).
 */
async function startAll(group: N8nProcessOptions[]): Promise<N8nProcess[]> {
	const results = await Promise.allSettled(group.map((options) => N8nProcess.start(options)));
	const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
	const failed = results.find((result) => result.status === 'rejected');
	if (failed) {
		for (const process of started) await process.stop();
		throw failed.reason;
	}
	return started;
}

export class N8nStack {
	/** Where clients reach n8n: the balancer when there are webhook processes, otherwise main. */
	readonly baseUrl: string;
	/** Main's own address. */
	readonly mainUrl: string;
	readonly mode: ExecutionsMode;
	readonly userFolder: string;
	/** The stack's PostgreSQL database (`database: 'postgres'`). */
	readonly database: PostgresDatabase | undefined;
	/** Between the processes and the database (`stallingDatabase`). */
	readonly databaseProxy: StallingProxy | undefined;
	/** In front of main and the webhook processes (`webhookProcesses` > 0). */
	readonly balancer: Balancer | undefined;
	/** Workers, in start order: those started with the stack, then those added (`addWorker`). */
	readonly workers: N8nProcess[];
	/** `n8n webhook` processes; process `n` (1-based) is `webhookProcesses[n - 1]` and the balancer's `webhook-<n>`. */
	readonly webhookProcesses: N8nProcess[];
	/** Workers ended with `killWorker` (their logs stay readable). */
	readonly killed: N8nProcess[] = [];
	private mainProcess: N8nProcess;
	/** The variables every process of the stack gets (to start more workers alike). */
	private readonly shared: Record<string, string>;
	private readonly host: N8nHost | undefined;

	private constructor(
		init: Pick<
			N8nStack,
			| 'baseUrl'
			| 'mainUrl'
			| 'mode'
			| 'userFolder'
			| 'database'
			| 'databaseProxy'
			| 'balancer'
			| 'workers'
			| 'webhookProcesses'
		>,
		main: N8nProcess,
		shared: Record<string, string>,
		host: N8nHost | undefined,
	) {
		this.baseUrl = init.baseUrl;
		this.mainUrl = init.mainUrl;
		this.mode = init.mode;
		this.userFolder = init.userFolder;
		this.database = init.database;
		this.databaseProxy = init.databaseProxy;
		this.balancer = init.balancer;
		this.workers = init.workers;
		this.webhookProcesses = init.webhookProcesses;
		this.mainProcess = main;
		this.shared = shared;
		this.host = host;
	}

	get main(): N8nProcess {
		return this.mainProcess;
	}

	/** The first worker (queue mode). */
	get worker(): N8nProcess | undefined {
		return this.workers[0];
	}

	/** Queue mode: starts one more worker on the same Redis queue; `env` adds variables (e.g. its concurrency). */
	async addWorker(env: Record<string, string> = {}): Promise<N8nProcess> {
		if (this.mode !== 'queue') throw new Error('Workers run in queue mode only');
		const name = `worker-${this.workers.length + this.killed.length + 1}`;
		const worker = await N8nProcess.start(await workerOptions(this.userFolder, name, this.shared, this.host, env));
		this.workers.push(worker);
		return worker;
	}

	/** Stops a worker (SIGTERM: it finishes or hands back its jobs). */
	async removeWorker(worker: N8nProcess): Promise<void> {
		await worker.stop();
		this.workers.splice(this.workers.indexOf(worker), 1);
	}

	/** Ends a worker with SIGKILL, as a crash or the OOM killer would: no shutdown, its running jobs keep their Bull lock until it expires. */
	async killWorker(worker: N8nProcess): Promise<void> {
		const at = this.workers.indexOf(worker);
		if (at < 0) throw new Error(`${worker.describe()} is not a worker of this stack`);
		await worker.kill();
		this.workers.splice(at, 1);
		this.killed.push(worker);
	}

	/** Stops webhook process `index` (1-based) and starts it again on the same port; the balancer skips it meanwhile. */
	async restartWebhookProcess(index: number): Promise<N8nProcess> {
		const old = this.webhookProcesses[index - 1];
		if (!old) throw new Error(`there is no webhook process ${index}`);
		this.balancer?.setUp(index, false);
		await old.stop();
		const started = await N8nProcess.start(old.options);
		this.webhookProcesses[index - 1] = started;
		this.balancer?.setUp(index, true);
		return started;
	}

	/**
	 * Stops every process and starts them all again alike: same user folder, database, encryption key, Redis prefix and
	 * ports. The balancer stays up (it answers 502 while nothing listens). Redis keeps the queue, as it would in production.
	 */
	async restart(): Promise<void> {
		const workers = this.workers.map((worker) => worker.options);
		const webhooks = this.webhookProcesses.map((process) => process.options);
		await this.stopProcesses();
		this.mainProcess = await N8nProcess.start(this.mainProcess.options);
		try {
			const started = await startAll([...workers, ...webhooks]);
			this.workers.splice(0, this.workers.length, ...started.slice(0, workers.length));
			this.webhookProcesses.splice(0, this.webhookProcesses.length, ...started.slice(workers.length));
		} catch (error) {
			await this.mainProcess.stop();
			throw error;
		}
	}

	static async start(options: N8nStackOptions): Promise<N8nStack> {
		const { mode, dir } = options;
		const workerCount = mode === 'queue' ? (options.workers ?? 1) : 0;
		const webhookCount = mode === 'queue' ? (options.webhookProcesses ?? 0) : 0;
		if (mode === 'regular' && (options.workers || options.webhookProcesses))
			throw new Error('Workers and webhook processes run in queue mode only');
		const [freeMainPort, mainBrokerPort] = await freePorts(2);
		const port = options.port ?? freeMainPort;
		const mainUrl = `http://127.0.0.1:${port}`;
		mkdirSync(dir, { recursive: true });

		// Everything that must be undone when a later step fails.
		let database: PostgresDatabase | undefined;
		let databaseProxy: StallingProxy | undefined;
		let balancer: Balancer | undefined;
		let main: N8nProcess | undefined;
		const prefix = `n8n-e2e-${randomBytes(4).toString('hex')}`;
		const redis = options.redis ?? defaultRedis;
		try {
			database = options.database === 'postgres' ? await PostgresDatabase.create() : undefined;
			databaseProxy = database && options.stallingDatabase ? await StallingProxy.start(database.server) : undefined;
			// The balancer first: its address goes into every URL n8n hands out.
			balancer = webhookCount > 0 ? await Balancer.start() : undefined;
			const baseUrl = balancer?.url ?? mainUrl;
			const shared: Record<string, string> = {
				N8N_USER_FOLDER: dir,
				N8N_ENCRYPTION_KEY: options.encryptionKey ?? randomBytes(24).toString('base64url'),
				N8N_PORT: String(port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				N8N_PROTOCOL: 'http',
				// Hooks that a trigger registers, and the links n8n builds, must point back at this instance (at its balancer).
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
				...(database
					? {
							...database.n8nEnv,
							...(databaseProxy
								? { DB_POSTGRESDB_HOST: databaseProxy.host, DB_POSTGRESDB_PORT: String(databaseProxy.port) }
								: {}),
						}
					: // SQLite waits up to 30 s for another process's write lock, not node-sqlite3's 1 s (sqliteBusyTimeout.cjs).
						{ NODE_OPTIONS: `--require ${JSON.stringify(path.join(e2eDir, 'lib', 'sqliteBusyTimeout.cjs'))}` }),
			};
			if (mode === 'queue') {
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
			// Production webhooks only on the webhook processes: main's server then leaves out /webhook/, /webhook-waiting/,
			// /form/, /form-waiting/ and /mcp/ (n8n 2.41.1 dist/server.js, webhooksEnabled; see balancer.ts).
			if (webhookCount > 0) shared.N8N_DISABLE_PRODUCTION_MAIN_PROCESS = 'true';
			Object.assign(shared, options.env);

			const workerGroup: N8nProcessOptions[] = [];
			for (let n = 1; n <= workerCount; n++) {
				workerGroup.push(await workerOptions(dir, workerCount === 1 ? 'worker' : `worker-${n}`, shared, options.host));
			}
			const webhookGroup: N8nProcessOptions[] = [];
			const webhookPorts: number[] = [];
			for (let n = 1; n <= webhookCount; n++) {
				const [webhookPort, brokerPort] = await freePorts(2);
				webhookPorts.push(webhookPort);
				webhookGroup.push({
					name: `webhook-${n}`,
					command: 'webhook',
					env: { ...shared, N8N_PORT: String(webhookPort), N8N_RUNNERS_BROKER_PORT: String(brokerPort) },
					logFile: path.join(dir, `n8n-webhook-${n}.log`),
					// A webhook process serves /healthz/readiness too; it answers 200 once the process called markAsReady()
					// (dist/abstract-server.js setupHealthCheck, dist/commands/webhook.js run()).
					healthUrl: `http://127.0.0.1:${webhookPort}`,
					host: options.host,
				});
			}
			balancer?.setTargets(port, webhookPorts);

			main = await N8nProcess.start({
				name: 'main',
				command: 'start',
				env: { ...shared, N8N_RUNNERS_BROKER_PORT: String(mainBrokerPort) },
				logFile: path.join(dir, 'n8n-main.log'),
				healthUrl: mainUrl,
				host: options.host,
			});
			const started = await startAll([...workerGroup, ...webhookGroup]);
			return new N8nStack(
				{
					baseUrl,
					mainUrl,
					mode,
					userFolder: dir,
					database,
					databaseProxy,
					balancer,
					workers: started.slice(0, workerGroup.length),
					webhookProcesses: started.slice(workerGroup.length),
				},
				main,
				shared,
				options.host,
			);
		} catch (error) {
			await main?.stop();
			await balancer?.close();
			await databaseProxy?.close();
			await database?.drop();
			if (mode === 'queue') await forgetRedisKeys(redis, prefix);
			throw error;
		}
	}

	/** Every process: main, workers, webhook processes, then the killed ones. */
	get processes(): N8nProcess[] {
		return [this.main, ...this.workers, ...this.webhookProcesses, ...this.killed];
	}

	/** The last lines of every process, for a failure message. */
	logReport(lines = 60): string {
		return this.processes.map((process) => process.tailReport(lines)).join('\n');
	}

	async stop(): Promise<void> {
		await this.stopProcesses();
		await this.balancer?.close();
		await this.databaseProxy?.close();
		await this.database?.drop();
		if (this.mode === 'queue') {
			await forgetRedisKeys(
				{ host: this.shared.QUEUE_BULL_REDIS_HOST, port: Number(this.shared.QUEUE_BULL_REDIS_PORT) },
				this.shared.QUEUE_BULL_PREFIX,
			);
		}
	}

	/** Webhook processes and workers first (they finish their jobs while main still accepts their results), main last. */
	private async stopProcesses(): Promise<void> {
		for (const process of [...this.webhookProcesses].reverse()) await process.stop();
		for (const worker of [...this.workers].reverse()) await worker.stop();
		await this.main.stop();
	}
}

/** Removes the keys a stack's queue and cache left in Redis (all under its own prefix). */
async function forgetRedisKeys(server: { host: string; port: number }, prefix: string): Promise<void> {
	const redis = new Redis({ host: server.host, port: server.port, lazyConnect: true });
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
