import type { LogFields, LogLevel, ReceiverLogger } from './logger';

/** The console as far as the default logger needs it: any of its four methods taking a line and an error. */
type ConsoleSink = Record<LogLevel, (line: string, ...rest: unknown[]) => void>;

/**
 * The receiver's default logger, and the one place in the library that writes to the console: every other module
 * logs through a {@link ReceiverLogger}, so that an application's logger receives every line. The lines are those the
 * receiver always printed: `[receiver] <message>`, followed by the error (`:` and the error object) when there is one.
 * `sink` is read at each line, not kept, so that a console replaced later (a test's spy, an APM agent) sees them.
 */
export function consoleLogger(sink: () => ConsoleSink = () => globalThis.console): ReceiverLogger {
	const write = (level: LogLevel) => (message: string, fields: LogFields) => {
		const target = sink();
		if (fields.error === undefined) target[level](`[receiver] ${message}`);
		else target[level](`[receiver] ${message}:`, fields.error);
	};
	return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** The logger used when none is given. */
export const DEFAULT_LOGGER: ReceiverLogger = consoleLogger();
