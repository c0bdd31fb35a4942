/**
 * A PostgreSQL database of its own for one n8n stack: created empty (n8n migrates it on its first start), dropped when
 * the stack stops. Talks to the server with `psql` (the client that comes with PostgreSQL), so the harness needs no
 * database driver. The server is TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432, trust auth on loopback),
 * which `.ci/run` starts when nothing answers there.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432';

export interface PostgresServer {
	host: string;
	port: number;
	user: string;
	password?: string;
}

export function testPostgres(env: Record<string, string | undefined> = process.env): PostgresServer {
	const url = new URL(env.TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL);
	if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
		throw new Error(`TEST_POSTGRES_URL must start with postgres://, got "${url}"`);
	return {
		host: url.hostname,
		port: Number(url.port || 5432),
		user: decodeURIComponent(url.username || 'postgres'),
		...(url.password ? { password: decodeURIComponent(url.password) } : {}),
	};
}

/** Runs one SQL command on the server's `postgres` database; returns psql's unaligned rows. */
async function psql(server: PostgresServer, sql: string, database = 'postgres'): Promise<string> {
	// The SQL goes on standard input: a command can be larger than one argument may be (a filled history is megabytes).
	const args = [
		'-h',
		server.host,
		'-p',
		String(server.port),
		'-U',
		server.user,
		'-d',
		database,
		'-X',
		'-q',
		'-A',
		'-t',
		'-v',
		'ON_ERROR_STOP=1',
		'-f',
		'-',
	];
	const child = spawn('psql', args, {
		env: { ...process.env, ...(server.password ? { PGPASSWORD: server.password } : {}) },
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	const output: Buffer[] = [];
	const errors: Buffer[] = [];
	child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
	child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
	child.stdin.end(sql);
	const [code] = (await once(child, 'close')) as [number | null];
	if (code !== 0) {
		const detail = Buffer.concat(errors).toString('utf8').trim() || `exit ${code}`;
		throw new Error(`psql on ${server.host}:${server.port} failed (${sql.slice(0, 80)}): ${detail}`);
	}
	return Buffer.concat(output).toString('utf8').trim();
}

export class PostgresDatabase {
	readonly name: string;
	readonly server: PostgresServer;

	private constructor(name: string, server: PostgresServer) {
		this.name = name;
		this.server = server;
	}

	/** A new empty database `n8n_e2e_<random hex>` (a plain identifier: nothing to quote). */
	static async create(server: PostgresServer = testPostgres()): Promise<PostgresDatabase> {
		const name = `n8n_e2e_${randomBytes(6).toString('hex')}`;
		await psql(server, `CREATE DATABASE ${name}`);
		return new PostgresDatabase(name, server);
	}

	/** What n8n reads to use this database. */
	get n8nEnv(): Record<string, string> {
		return {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: this.server.host,
			DB_POSTGRESDB_PORT: String(this.server.port),
			DB_POSTGRESDB_USER: this.server.user,
			...(this.server.password ? { DB_POSTGRESDB_PASSWORD: this.server.password } : {}),
			DB_POSTGRESDB_DATABASE: this.name,
		};
	}

	/** Runs a query in this database; returns psql's unaligned rows (`|` between columns). */
	async query(sql: string): Promise<string[]> {
		const output = await psql(this.server, sql, this.name);
		return output ? output.split('\n') : [];
	}

	/**
	 * Drops the database. Connections left open (an n8n process killed with SIGKILL leaves its sessions until the
	 * server notices) would make DROP fail, so they are ended first.
	 */
	async drop(): Promise<void> {
		await psql(
			this.server,
			`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${this.name}' AND pid <> pg_backend_pid()`,
		);
		await psql(this.server, `DROP DATABASE IF EXISTS ${this.name}`);
	}
}
