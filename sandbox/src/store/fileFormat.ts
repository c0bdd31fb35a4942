import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { checkContents, readLegacySlices } from './contents';
import { DataFileError } from './dataFileError';
import { migrateSlices, MIGRATIONS, SCHEMA_VERSION } from './migrations';
import type { RecordKey } from './schema';

/** `PRAGMA application_id` of sandbox data files ("MBBS"): a file without it is not ours. */
const APPLICATION_ID = 0x4d424253;
const SQLITE_HEADER = 'SQLite format 3\0';

interface PreparedFile {
	fresh: boolean;
	preloaded?: Map<string, [RecordKey, unknown][]>;
}

/** The store's database, ready for writes; `preloaded` holds the records checked at open, by kind. */
export interface OpenedDatabase {
	db: DatabaseSync;
	/** True when the file held no state at open (demo data is seeded then). */
	fresh: boolean;
	preloaded: Map<string, [RecordKey, unknown][]>;
}

/** The store's database: the data file opened, checked and upgraded, or a database in memory. */
export function openStoreDatabase(dataFile?: string): OpenedDatabase {
	const db = dataFile === undefined ? new DatabaseSync(':memory:') : openDataFile(dataFile);
	const file = dataFile ?? ':memory:';
	try {
		const prepared = prepareSchema(db, file);
		// Checked before anything else is written (journal mode, lock).
		const preloaded = prepared.preloaded ?? (prepared.fresh ? new Map() : checkContents(db, file));
		db.exec('PRAGMA query_only = OFF');
		// One process per file: two sandboxes on one file would each write from their own working set.
		// EXCLUSIVE holds the lock from the first write on (a second sandbox is refused at its start).
		if (dataFile !== undefined) db.exec('PRAGMA locking_mode = EXCLUSIVE');
		db.exec('PRAGMA journal_mode = WAL');
		if (dataFile !== undefined) db.exec('BEGIN IMMEDIATE; COMMIT');
		// NORMAL: a commit is in the WAL before the answer, so it survives the process being killed.
		db.exec('PRAGMA synchronous = NORMAL');
		return { db, fresh: prepared.fresh, preloaded };
	} catch (error) {
		db.close();
		if (error instanceof DataFileError || dataFile === undefined) throw error;
		throw new DataFileError(
			dataFile,
			`is damaged (${(error as Error).message})`,
			'restore it from a copy, or pass another --data file',
		);
	}
}

/**
 * What the file is: the sandbox's (`ours`, at schema `version`), one from before the SQLite store (its checked
 * sections in `legacy`), or empty; anything else is refused.
 */
function identifyFile(
	db: DatabaseSync,
	file: string,
): { ours: boolean; version: number; legacy?: Map<string, unknown> } {
	const applicationId = pragma(db, 'application_id');
	const version = pragma(db, 'user_version');
	const objects = db.prepare('SELECT type, name, tbl_name AS tableName FROM sqlite_master').all() as {
		type: string;
		name: string;
		tableName: string;
	}[];
	if (applicationId === APPLICATION_ID) {
		if (version > SCHEMA_VERSION) {
			throw new DataFileError(
				file,
				`was written by a newer sandbox (data schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
				'start the newer sandbox, or pass another --data file',
			);
		}
		return { ours: true, version };
	}
	if (applicationId !== 0)
		throw new DataFileError(file, `is an SQLite database of another application (application id ${applicationId})`);
	if (
		version === 0 &&
		objects.length > 0 &&
		objects.every(
			(object) =>
				object.tableName === 'slices' && (object.type === 'table' || object.name.startsWith('sqlite_autoindex_')),
		)
	)
		return { ours: false, version, legacy: readLegacySlices(db, file) };
	if (version !== 0 || objects.length > 0) {
		// Not ours and not empty: anything in it (a view, a user_version alone) is another application's.
		throw new DataFileError(
			file,
			`is an SQLite database of another application (${describeForeign(objects, version)})`,
		);
	}
	return { ours: false, version };
}

/**
 * Creates or upgrades the schema of the file {@link identifyFile} accepted. `fresh`: the file holds no state yet;
 * `preloaded`: the records a migration checked.
 */
function prepareSchema(db: DatabaseSync, file: string): PreparedFile {
	const { ours, version, legacy } = identifyFile(db, file);
	let preloaded: PreparedFile['preloaded'];
	if (legacy === undefined && version === SCHEMA_VERSION && ours) {
		return { fresh: holdsNoDocuments(db) };
	}
	db.exec('PRAGMA query_only = OFF');
	db.exec('BEGIN IMMEDIATE');
	try {
		for (let step = ours ? version : 0; step < SCHEMA_VERSION; step++) MIGRATIONS[step](db);
		if (legacy) migrateSlices(db, legacy);
		// What a migration wrote is checked before it is committed: a refused file stays as it was.
		try {
			preloaded = checkContents(db, file);
		} catch (error) {
			if (legacy && error instanceof DataFileError)
				throw new DataFileError(
					file,
					`is damaged: its old sections do not convert (${error.problem.replace(/^is damaged: /, '')})`,
				);
			throw error;
		}
		db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
		db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
		db.exec('COMMIT');
	} catch (error) {
		db.exec('ROLLBACK');
		throw error;
	}
	return { fresh: legacy ? legacy.size === 0 : holdsNoDocuments(db), preloaded };
}

function holdsNoDocuments(db: DatabaseSync): boolean {
	return (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n === 0;
}

function pragma(db: DatabaseSync, name: string): number {
	return Number(Object.values(db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[0]);
}

/** What a foreign file holds, for its refusal: `tables: users; views: v; user_version 42`. */
function describeForeign(objects: { type: string; name: string }[], version: number): string {
	const parts: string[] = [];
	for (const type of ['table', 'view', 'index', 'trigger']) {
		const names = objects
			.filter((object) => object.type === type && !object.name.startsWith('sqlite_'))
			.map((object) => object.name);
		if (names.length > 0) parts.push(`${type === 'index' ? 'indexes' : `${type}s`}: ${names.slice(0, 5).join(', ')}`);
	}
	if (parts.length === 0 && version === 0)
		parts.push(
			`objects: ${objects
				.slice(0, 5)
				.map((object) => object.name)
				.join(', ')}`,
		);
	if (version !== 0) parts.push(`user_version ${version}`);
	return parts.join('; ');
}

/**
 * Opens a data file for inspection without writing to it: garbage is refused before SQLite sees it,
 * and the connection is read-only (query_only) until the file is known to be the sandbox's.
 */
function openDataFile(file: string): DatabaseSync {
	let size = 0;
	try {
		size = statSync(file).size;
	} catch {
		// A new file.
	}
	if (size > 0) {
		const header = Buffer.alloc(SQLITE_HEADER.length);
		let descriptor: number | undefined;
		try {
			descriptor = openSync(file, 'r');
			readSync(descriptor, header, 0, header.length, 0);
		} catch (error) {
			throw new DataFileError(
				file,
				`cannot be read (${(error as Error).message})`,
				'check its permissions or pass another --data file',
			);
		} finally {
			if (descriptor !== undefined) closeSync(descriptor);
		}
		if (header.toString('latin1') !== SQLITE_HEADER)
			throw new DataFileError(file, 'is not a sandbox data file (not an SQLite database)');
	}
	let db: DatabaseSync;
	try {
		db = new DatabaseSync(file);
	} catch (error) {
		throw new DataFileError(
			file,
			`cannot be opened (${(error as Error).message})`,
			'check the path and its permissions, or pass another --data file',
		);
	}
	try {
		db.exec('PRAGMA query_only = ON');
		if (size > 0) {
			const problems = (db.prepare('PRAGMA quick_check(3)').all() as Record<string, string>[]).map(
				(row) => Object.values(row)[0],
			);
			if (problems.length !== 1 || problems[0] !== 'ok')
				throw new DataFileError(
					file,
					`is damaged (SQLite: ${problems.join('; ')})`,
					'restore it from a copy, or pass another --data file',
				);
		}
		return db;
	} catch (error) {
		db.close();
		if (error instanceof DataFileError) throw error;
		if (/locked|busy/i.test((error as Error).message)) {
			throw new DataFileError(
				file,
				'is in use by another running sandbox (or another program)',
				'stop that one first, or pass another --data file',
			);
		}
		throw new DataFileError(
			file,
			`is damaged (SQLite: ${(error as Error).message})`,
			'restore it from a copy, or pass another --data file',
		);
	}
}
