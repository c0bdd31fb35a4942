/** Types of longStep.cjs (plain CommonJS, so that scripts/node24.cjs can use it on Node 18). */
export declare const HEARTBEAT_MS: number;
export declare function formatDuration(ms: number): string;
/** Runs a synchronous step with a start line, progress lines and its total; a spawnSync result with a status other than 0 counts as failed. */
export declare function longStep<T>(
	prefix: string,
	what: string,
	usually: string,
	run: () => T,
	options?: { quiet?: boolean },
): T;
export declare function progressLine(prefix: string, what: string, elapsedMs: number): string;
/** `<prefix>: <what> (usually <usually>)…` */
export declare function startLine(prefix: string, what: string, usually: string): string;
/** `<prefix>: <what>: done in <total>`, `failed after <total>`, or `failed (<failure>) after <total>`. */
export declare function endLine(prefix: string, what: string, ok: boolean, elapsedMs: number, failure?: string): string;
