/** The local copy of the service (sandbox/dist), started in this process, and a small client of its API. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sandboxDist } from './paths.ts';

export interface SandboxOptions {
	port?: number;
	adminKey?: string;
	seed?: boolean;
	rateLimit?: number;
	retrySchedule?: number[];
	dataFile?: string;
	/** `v1a`: hooks get an Ed25519 key pair and their deliveries carry only the Standard Webhooks v1a signature. */
	signingAlgorithm?: 'HS256' | 'ES256' | 'EdDSA' | 'v1a';
}

/** One JSON answer the sandbox sent (sandbox/src/server.ts). */
export interface SentAnswer {
	method: string;
	/** The request's path (`/api/list/rows/add`), without the query string. */
	path: string;
	status: number;
	body: unknown;
}

export interface RunningSandbox {
	url: string;
	baseUrl: string;
	adminKey: string;
	/** Calls `listener` with every JSON answer, in this process, just before the answer is written. */
	observeAnswers(listener: (answer: SentAnswer) => void): void;
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
	if (!existsSync(sandboxDist)) throw new Error(`${sandboxDist} is missing: run \`npm run build -w sandbox\` first`);
	const sandbox = createRequire(import.meta.url)(sandboxDist) as {
		startSandbox(options: SandboxOptions): Promise<RunningSandbox>;
	};
	return sandbox.startSandbox({ port: 0, ...options });
}

/** Calls the sandbox over HTTP with one key, the way any client of the service would. */
export class SandboxClient {
	readonly url: string;
	private readonly key: string;

	constructor(url: string, key: string) {
		this.url = url;
		this.key = key;
	}

	/** POST {url}/api{path} with a JSON body; throws with the service's `code` on a non-2xx answer. */
	api<T = unknown>(path: string, body: Record<string, unknown> = {}): Promise<T> {
		return this.post(`/api${path}`, body);
	}

	/** Sandbox-only routes outside /api (account key), e.g. /sandbox/payments. */
	sandboxRoute<T = unknown>(path: string, body: Record<string, unknown> = {}): Promise<T> {
		return this.post(`/sandbox${path}`, body);
	}

	private async post<T>(path: string, body: Record<string, unknown>): Promise<T> {
		const response = await fetch(`${this.url}${path}`, {
			method: 'POST',
			headers: { authorization: this.key, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`sandbox POST ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
		return JSON.parse(text) as T;
	}
}
