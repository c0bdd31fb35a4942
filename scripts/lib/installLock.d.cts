/** Types of installLock.cjs (plain CommonJS, so that scripts/node24.cjs can use it on Node 18). */
/** Whether a process with this pid is running (one of another user counts). */
export declare function isAlive(pid: number): boolean;
/**
 * Runs `install` while holding a lock on `dir` (a folder `<dir>.lock` beside it); a second process waits, with a line
 * to `report` (stdout by default) when the wait begins and at least every 30 s. A lock whose process is gone is taken over.
 */
export declare function withInstallLock<T>(
	dir: string,
	what: string,
	install: () => T,
	report?: (line: string) => void,
): T;
