import type { DatabaseSync } from 'node:sqlite';
import { DataFileError } from './dataFileError';
import { DOCUMENT_SHAPES, LEGACY_SLICE_SHAPES, recordShape, shapeProblem, type RecordKey } from './schema';

function parseSection(file: string, where: string, json: string): unknown {
	try {
		return JSON.parse(json);
	} catch {
		throw new DataFileError(file, `is damaged: ${where} is not valid JSON (truncated?)`);
	}
}

/**
 * Parses and checks every document and record once, so a damaged file is refused at start; returns the records by
 * kind, for the store to hand to their loaders.
 */
export function checkContents(db: DatabaseSync, file: string): Map<string, [RecordKey, unknown][]> {
	for (const row of db.prepare('SELECT name, json FROM documents').all() as { name: string; json: string }[]) {
		const shape = DOCUMENT_SHAPES[row.name];
		if (!shape) throw new DataFileError(file, `is damaged: it holds an unknown document "${row.name}"`);
		const problem = shapeProblem(parseSection(file, `document "${row.name}"`, row.json), shape, '');
		if (problem) throw new DataFileError(file, `is damaged: document "${row.name}" has the wrong shape (${problem})`);
	}
	const preloaded = new Map<string, [RecordKey, unknown][]>();
	for (const row of db.prepare('SELECT kind, key, json FROM records ORDER BY rowid').iterate() as Iterable<{
		kind: string;
		key: RecordKey;
		json: string;
	}>) {
		const shape = recordShape(row.kind);
		if (!shape) throw new DataFileError(file, `is damaged: it holds records of an unknown kind "${row.kind}"`);
		const where = `record ${row.kind} ${row.key}`;
		const value = parseSection(file, where, row.json);
		const problem = shapeProblem(value, shape, '');
		if (problem) throw new DataFileError(file, `is damaged: ${where} has the wrong shape (${problem})`);
		let list = preloaded.get(row.kind);
		if (!list) preloaded.set(row.kind, (list = []));
		list.push([row.key, value]);
	}
	return preloaded;
}

/** The sections of a data file from before the SQLite store, each parsed and checked. */
export function readLegacySlices(db: DatabaseSync, file: string): Map<string, unknown> {
	const columns = (db.prepare('PRAGMA table_info(slices)').all() as { name: string }[])
		.map((column) => column.name)
		.sort();
	if (columns.join(',') !== 'json,name')
		throw new DataFileError(file, 'is an SQLite database of another application (table slices of another shape)');
	const slices = new Map<string, unknown>();
	for (const row of db.prepare('SELECT name, json FROM slices').all() as { name: unknown; json: unknown }[]) {
		const name = String(row.name);
		const shape = LEGACY_SLICE_SHAPES[name];
		if (!shape) throw new DataFileError(file, `is damaged: it holds an unknown section "${name}"`);
		if (typeof row.json !== 'string') throw new DataFileError(file, `is damaged: section "${name}" is not text`);
		const value = parseSection(file, `section "${name}"`, row.json);
		const problem =
			shapeProblem(value, shape, name) ?? (name === 'chats' ? chatKeyProblem(value as { chats: object }) : undefined);
		if (problem) throw new DataFileError(file, `is damaged: section "${name}" has the wrong shape (${problem})`);
		slices.set(name, value);
	}
	return slices;
}

/** The old `chats` section is keyed by subscriber number; the migration turns each key into a number. */
function chatKeyProblem(section: { chats: object }): string | undefined {
	const key = Object.keys(section.chats).find((candidate) => !/^[1-9][0-9]{0,14}$/.test(candidate));
	return key === undefined ? undefined : `chats.chats.${key} is not a subscriber number`;
}
