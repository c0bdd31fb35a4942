/**
 * What `npm run dev` keeps between runs (git-ignored): keys and ids of the local n8n and sandbox; and
 * what it checks and repairs on every start: its ports and its credential.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { PublicApi } from './n8nApi.ts';

export interface DevState {
	/** n8n encrypts credentials with it: it must not change while the user folder lives. */
	encryptionKey: string;
	sandboxAdminKey: string;
	ownerCreated?: boolean;
	apiKey?: string;
	credentialId?: string;
}

export class DevStateFile {
	readonly file: string;
	readonly state: DevState;

	constructor(dir: string) {
		mkdirSync(dir, { recursive: true });
		this.file = path.join(dir, 'state.json');
		this.state = existsSync(this.file)
			? (JSON.parse(readFileSync(this.file, 'utf8')) as DevState)
			: {
					encryptionKey: randomBytes(24).toString('base64url'),
					sandboxAdminKey: `mbb_dev_${randomBytes(18).toString('base64url')}`,
				};
		this.save();
	}

	update(change: Partial<DevState>): void {
		Object.assign(this.state, change);
		this.save();
	}

	private save(): void {
		writeFileSync(this.file, `${JSON.stringify(this.state, null, 2)}\n`, { mode: 0o600 });
	}
}

export interface DevPort {
	port: number;
	/** The environment variable that sets it. */
	variable: string;
	what: string;
}

/** The port in `variable` (or its default), or an error naming the variable. */
export function readPort(variable: string, fallback: number, what: string): DevPort | { error: string } {
	const raw = process.env[variable];
	const port = raw === undefined || raw === '' ? fallback : Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535)
		return { error: `${variable} must be a port number from 1 to 65535, got "${raw}"` };
	return { port, variable, what };
}

function isInUse(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const probe = net.createServer();
		probe.once('error', (error: NodeJS.ErrnoException) =>
			resolve(error.code === 'EADDRINUSE' || error.code === 'EACCES'),
		);
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
	});
}

/** One line for the first port that is taken (naming the variable that moves it), or undefined when all are free. */
export async function portsInUse(ports: DevPort[]): Promise<string | undefined> {
	for (const { port, variable, what } of ports) {
		if (await isInUse(port)) {
			return `port ${port} (${what}) is already in use on 127.0.0.1; set ${variable} to a free port, e.g. ${variable}=${port + 1} npm run dev`;
		}
	}
	return undefined;
}

export interface DevCredential {
	name: string;
	type: string;
	data: { apiKey: string; baseUrl: string };
}

/**
 * The sandbox credential, pointed at the running sandbox: updated in place when it exists (the
 * sandbox's port or key may have changed since the last run), created when it does not (first run,
 * or deleted in the editor).
 */
export async function ensureDevCredential(
	api: PublicApi,
	id: string | undefined,
	credential: DevCredential,
): Promise<{ id: string; created: boolean }> {
	if (id && (await api.updateCredential(id, { name: credential.name, type: credential.type, data: credential.data })))
		return { id, created: false };
	const created = await api.createCredential(credential.name, credential.type, credential.data);
	return { id: created.id, created: true };
}
