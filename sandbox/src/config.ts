import { resolveChaos, type DeliveryChaos } from './delivery/chaos';
import { MAX_PAGE_SIZE } from './http/params';

/** Options of one sandbox instance; the command line maps its flags onto these. */
export interface SandboxOptions {
	host?: string;
	/** 0 picks any free port. */
	port?: number;
	/** A fixed account key; a random one is made otherwise. */
	adminKey?: string;
	/** SQLite file that keeps state across restarts; in memory when absent. */
	dataFile?: string;
	/** Requests per second per key (token bucket); 0 turns limiting off. */
	rateLimit?: number;
	/** Rows a list keeps before the oldest is trimmed. */
	rowCap?: number;
	/** IANA time zone of the account (CreationDate of list rows). */
	timezone?: string;
	/** Seconds to wait before each redelivery of a failed hook delivery. */
	retrySchedule?: number[];
	/** Milliseconds a hook receiver has to answer a delivery. */
	deliveryTimeoutMs?: number;
	/**
	 * How deliveries are signed: a JWT by HS256 with the hook secret or the account's ES256/EdDSA key (with the Standard
	 * Webhooks `v1` HMAC beside it), or `v1a`: new hooks get their own Ed25519 key pair (/hook/create answers its public
	 * key `whpk_…` instead of a secret) and their deliveries carry only the Standard Webhooks `v1a` signature.
	 */
	signingAlgorithm?: 'HS256' | 'ES256' | 'EdDSA' | 'v1a';
	/**
	 * Delivery chaos (docs/delivery-chaos.md): shares of deliveries sent twice at once, held back, late, cut off or
	 * answered too late, chosen by a seed. Every rate defaults to 0: deliveries as the service makes them.
	 */
	deliveryChaos?: Partial<DeliveryChaos>;
	/** Milliseconds between two messages of a broadcast leaving its queue. */
	broadcastIntervalMs?: number;
	/** Demo data (bots, projects, chains, stages, a list, a catalog, subscribers). */
	seed?: boolean;
	/** Print a line per request. */
	verbose?: boolean;
	/**
	 * Ways to play the service differently where its documentation is silent, so clients can be
	 * tested against readings other than the sandbox's own (see docs/running.md: "Variants").
	 */
	/** Largest `limit` of a paged list method, 1 to 1000 (default 1000). */
	maxPage?: number;
	/** Above `maxPage`: `reject` answers 422 on `limit` (default), `cap` silently serves `maxPage`. */
	maxPageMode?: 'cap' | 'reject';
	/** List answers without `total`. */
	omitTotal?: boolean;
	/** `none`: 429 answers carry no Retry-After header. */
	retryAfter?: 'seconds' | 'none';
	/** Share (0 to 1) of read requests answered with a transient 503. */
	failReads?: number;
	/** Where list answers put their records: `items` (default), a bare array, or the resource's name (`rows`, ...). */
	listShape?: 'items' | 'bare' | 'named';
}

export type ResolvedOptions = Required<Omit<SandboxOptions, 'dataFile' | 'adminKey' | 'deliveryChaos'>> &
	Pick<SandboxOptions, 'dataFile' | 'adminKey'> & {
		/** Changed at run time by POST /sandbox/chaos. */
		deliveryChaos: DeliveryChaos;
	};

export const DEFAULT_RETRY_SCHEDULE = [5, 30, 120, 600, 3600];

/** The options that change what the sandbox answers where the documentation is silent (and so its OpenAPI document). */
export type VariantOptions = Pick<
	ResolvedOptions,
	'maxPage' | 'maxPageMode' | 'omitTotal' | 'retryAfter' | 'failReads' | 'listShape'
>;

/** The sandbox's own reading of the documentation's gaps: what its OpenAPI document describes. */
export const SANDBOX_READING: VariantOptions = {
	maxPage: MAX_PAGE_SIZE,
	maxPageMode: 'reject',
	omitTotal: false,
	retryAfter: 'seconds',
	failReads: 0,
	listShape: 'items',
};

/** True when the sandbox plays the service differently from its own reading (a variant flag is set). */
export function playsVariant(options: ResolvedOptions): boolean {
	return (Object.keys(SANDBOX_READING) as (keyof VariantOptions)[]).some(
		(name) => options[name] !== SANDBOX_READING[name],
	);
}

export function resolveOptions(options: SandboxOptions): ResolvedOptions {
	if (
		options.maxPage !== undefined &&
		!(Number.isInteger(options.maxPage) && options.maxPage >= 1 && options.maxPage <= MAX_PAGE_SIZE)
	) {
		throw new Error(`maxPage must be an integer from 1 to ${MAX_PAGE_SIZE}`);
	}
	if (options.failReads !== undefined && !(options.failReads >= 0 && options.failReads <= 1)) {
		throw new Error('failReads must be a share from 0 to 1');
	}
	return {
		host: options.host ?? '127.0.0.1',
		port: options.port ?? 8787,
		adminKey: options.adminKey,
		dataFile: options.dataFile,
		rateLimit: options.rateLimit ?? 10,
		rowCap: options.rowCap ?? 10000,
		timezone: options.timezone ?? 'UTC',
		retrySchedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
		deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10000,
		signingAlgorithm: options.signingAlgorithm ?? 'HS256',
		deliveryChaos: resolveChaos(options.deliveryChaos),
		broadcastIntervalMs: options.broadcastIntervalMs ?? 1000,
		seed: options.seed ?? true,
		verbose: options.verbose ?? false,
		maxPage: options.maxPage ?? SANDBOX_READING.maxPage,
		maxPageMode: options.maxPageMode ?? SANDBOX_READING.maxPageMode,
		omitTotal: options.omitTotal ?? SANDBOX_READING.omitTotal,
		retryAfter: options.retryAfter ?? SANDBOX_READING.retryAfter,
		failReads: options.failReads ?? SANDBOX_READING.failReads,
		listShape: options.listShape ?? SANDBOX_READING.listShape,
	};
}
