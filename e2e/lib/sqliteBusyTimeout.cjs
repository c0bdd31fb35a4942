'use strict';
/**
 * Preloaded into the n8n processes the e2e tests start (NODE_OPTIONS=--require, see n8nStack.ts). In queue mode the
 * main process and two workers share one SQLite file (n8n recommends Postgres for queue mode; there is none on these
 * machines). node-sqlite3 waits 1 s for another process's write lock and then fails the query with SQLITE_BUSY, and
 * n8n sets no longer wait: on a busy machine a writer holds the lock longer than that, and an execution failed with
 * "SQLITE_BUSY: database is locked" in n8n's own bookkeeping (seen in `npm run ci:under-load`). Each connection
 * n8n opens waits up to E2E_SQLITE_BUSY_TIMEOUT_MS (30 s) instead. It changes nothing else; a process that never
 * loads sqlite3 (the task runners) is unaffected.
 */
const Module = require('node:module');

const busyTimeoutMs = Number(process.env.E2E_SQLITE_BUSY_TIMEOUT_MS || 30000);
const load = Module._load;

Module._load = function loadWithBusyTimeout(request, ...rest) {
	const exported = load.call(this, request, ...rest);
	if (request !== 'sqlite3' || !exported || typeof exported.Database !== 'function' || exported.Database.busyTimeoutMs)
		return exported;
	const Original = exported.Database;
	// A factory rather than a subclass (the class is native): `new Database(...)` returns the connection it opened.
	function Database(...args) {
		const last = args.length - 1;
		const callback = typeof args[last] === 'function' ? args[last] : undefined;
		if (callback) {
			// Before the opener's callback runs its first statements (sqlite3 calls it after the constructor returned).
			args[last] = function opened(...openedArgs) {
				if (!openedArgs[0]) connection.configure('busyTimeout', busyTimeoutMs);
				return callback.apply(this, openedArgs);
			};
		}
		const connection = new Original(...args);
		if (!callback) connection.once('open', () => connection.configure('busyTimeout', busyTimeoutMs));
		return connection;
	}
	Database.prototype = Original.prototype;
	Database.busyTimeoutMs = busyTimeoutMs;
	exported.Database = Database;
	return exported;
};
