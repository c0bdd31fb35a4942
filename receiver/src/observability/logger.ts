/** A log line's severity. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The stable code of each line the receiver logs (the table in docs/observability.md says when each is written).
 * Alert on codes, not on the message text, which may be reworded.
 */
export type ReceiverLogCode =
	| 'delivery.refused'
	| 'delivery.failed'
	| 'listener.failed'
	| 'listener.error_handler_failed'
	| 'dispatch.wait_until_failed'
	| 'lease.renew_failed'
	| 'lease.renew_refused'
	| 'lease.lapsed'
	| 'lease.max_run_exceeded'
	| 'lease.record_failed'
	| 'lease.release_failed'
	| 'lease.completion_refused'
	| 'redis.orphan_lease_released'
	| 'redis.orphan_lease_release_failed'
	| 'redis.persistence_none'
	| 'redis.persistence_snapshots_only'
	| 'redis.persistence_fsync_no'
	| 'queue.worker_error'
	| 'queue.max_run_exceeded'
	| 'queue.dead_letters_piling_up';

/** What a line says besides its message: always its code; an event's id and kind, an error, when there is one. */
export interface LogFields {
	code: ReceiverLogCode;
	/** The error that caused the line; the default logger prints it after the message. */
	error?: unknown;
	eventId?: string;
	eventType?: string;
	[field: string]: unknown;
}

/**
 * Where the receiver's lines go: pino, winston, bunyan and `console` itself fit (each method receives the message,
 * then the fields). The default writes today's lines to the console, unchanged.
 */
export interface ReceiverLogger {
	debug(message: string, fields: LogFields): void;
	info(message: string, fields: LogFields): void;
	warn(message: string, fields: LogFields): void;
	error(message: string, fields: LogFields): void;
}

/** Checks a `logger` option; absent, the console logger. */
export function loggerOf(logger: ReceiverLogger | undefined, fallback: ReceiverLogger): ReceiverLogger {
	if (logger === undefined) return fallback;
	for (const level of ['debug', 'info', 'warn', 'error'] as const) {
		if (typeof logger?.[level] !== 'function')
			throw new TypeError('logger must have debug, info, warn and error methods');
	}
	return logger;
}
