import { DEFAULT_BODY_TIMEOUT_MS } from './body';
import { memoryDedupeStore } from './dedupe/memory';
import { DEFAULT_LEASE_MS, isDedupeStore, type DedupeStore } from './dedupe/store';
import { DEFAULT_LOGGER } from './observability/consoleLogger';
import { loggerOf, type ReceiverLogger } from './observability/logger';
import type { DeliveryQueue } from './queue';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import { positiveNumber, resolveVerifyOptions, type ResolvedVerifyOptions, type VerifyOptions } from './options';

export type AcknowledgeMode = 'onReceipt' | 'afterListeners' | 'queue';

export interface ReceiverOptions extends VerifyOptions {
	/**
	 * When the sender gets its 2xx. `afterListeners` (default): once the listeners have succeeded, within
	 * `listenerDeadlineMs`; a failure or a timeout answers 5xx and the sender retries (at least once). `onReceipt`: as
	 * soon as the delivery is verified, listeners run afterwards (at most once). `queue`: once the event is durably
	 * enqueued in `queue`; queue workers run the listeners with retries (at least once).
	 */
	acknowledge?: AcknowledgeMode;
	/** The processing state of event ids: a store, or `false` to run duplicates again. Default: in memory. */
	dedupe?: DedupeStore | false;
	/** With `acknowledge: 'queue'`: where verified events go (`deliveryQueue(...)`). */
	queue?: DeliveryQueue;
	/**
	 * `afterListeners`: longest time from the request's arrival (before its body is read) to the answer; listeners
	 * still running then get 503 (default 8000 ms, below the sender's 10 s).
	 */
	listenerDeadlineMs?: number;
	/** How long an event's lease lasts unless renewed (default 30 000 ms); renewed every third of it while listeners run. */
	leaseMs?: number;
	/**
	 * Longest time, from the request's arrival, that a run keeps its event's lease: then the lease is released (the
	 * event's next delivery runs it again), the listeners' `signal` is aborted and a line is logged. Checked every
	 * third of `leaseMs`. Default: `listenerDeadlineMs + leaseMs` with `afterListeners` (38 s), 5 minutes with
	 * `onReceipt`.
	 */
	maxRunMs?: number;
	/** Longest time a request body may take to arrive (default 10 000 ms); then 408, within a tenth of it more. */
	bodyTimeoutMs?: number;
	/**
	 * Debugging aid: the receiver's own log line for a refused delivery (printed when no `onError` handler is
	 * registered) is followed by the refusal's stack trace. Default false: one line per refusal, its reason and the
	 * signed event id when the signature matched.
	 */
	logStackTraces?: boolean;
	/**
	 * Where the receiver's lines go, each with a level and a stable code (see docs/observability.md). Default: the
	 * console, as `[receiver] ...` lines.
	 */
	logger?: ReceiverLogger;
}

export const DEFAULT_LISTENER_DEADLINE_MS = 8000;

/** `onReceipt`: how long a run keeps its lease by default. */
export const DEFAULT_MAX_RUN_MS = 5 * 60_000;

/** A receiver's options, checked, with their defaults. */
export interface ResolvedReceiverOptions {
	verifyOptions: ResolvedVerifyOptions;
	mode: AcknowledgeMode;
	/** Absent in queue mode (the queue's job ids deduplicate) and with `dedupe: false`. */
	dedupe: DedupeStore | undefined;
	queue: DeliveryQueue | undefined;
	listenerDeadlineMs: number;
	leaseMs: number;
	maxRunMs: number;
	bodyTimeoutMs: number;
	logStackTraces: boolean;
	logger: ReceiverLogger;
}

function acknowledgeMode(options: ReceiverOptions): AcknowledgeMode {
	const mode = options.acknowledge ?? 'afterListeners';
	if (mode !== 'onReceipt' && mode !== 'afterListeners' && mode !== 'queue') {
		throw new TypeError(`acknowledge must be 'onReceipt', 'afterListeners' or 'queue', not ${JSON.stringify(mode)}`);
	}
	return mode;
}

function queueOf(options: ReceiverOptions, mode: AcknowledgeMode): DeliveryQueue | undefined {
	if (mode === 'queue') {
		if (typeof options.queue?.enqueue !== 'function')
			throw new TypeError("acknowledge: 'queue' needs queue: deliveryQueue({ ... })");
		return options.queue;
	}
	if (options.queue !== undefined) throw new TypeError("queue is only used with acknowledge: 'queue'");
	return undefined;
}

function dedupeStoreOf(options: ReceiverOptions, mode: AcknowledgeMode): DedupeStore | undefined {
	if (options.dedupe !== undefined && options.dedupe !== false && !isDedupeStore(options.dedupe)) {
		throw new TypeError('dedupe must be a store with begin, renew, complete and release methods, or false');
	}
	// In queue mode the queue's job ids deduplicate.
	return mode === 'queue' || options.dedupe === false ? undefined : (options.dedupe ?? memoryDedupeStore());
}

/** Checks a receiver's options, in the order the errors are reported, and fills in the defaults. */
export function resolveReceiverOptions(options: ReceiverOptions): ResolvedReceiverOptions {
	const verifyOptions = resolveVerifyOptions(options, nodeCrypto);
	const mode = acknowledgeMode(options);
	const queue = queueOf(options, mode);
	const dedupe = dedupeStoreOf(options, mode);
	const listenerDeadlineMs = positiveNumber(
		options.listenerDeadlineMs,
		DEFAULT_LISTENER_DEADLINE_MS,
		'listenerDeadlineMs',
	);
	const leaseMs = positiveNumber(options.leaseMs, DEFAULT_LEASE_MS, 'leaseMs');
	const defaultMaxRunMs = mode === 'afterListeners' ? listenerDeadlineMs + leaseMs : DEFAULT_MAX_RUN_MS;
	return {
		verifyOptions,
		mode,
		dedupe,
		queue,
		listenerDeadlineMs,
		leaseMs,
		maxRunMs: positiveNumber(options.maxRunMs, defaultMaxRunMs, 'maxRunMs'),
		bodyTimeoutMs: positiveNumber(options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, 'bodyTimeoutMs'),
		logStackTraces: options.logStackTraces === true,
		logger: loggerOf(options.logger, DEFAULT_LOGGER),
	};
}
