import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startSandbox } from '../src';
import { openSandbox, TestClient } from './client';

/** Written by the sandbox before the SQLite store (table `slices`), with the code of that time: see fixtures/. */
const LEGACY_FIXTURE = join(__dirname, 'fixtures', 'legacy-slices.sqlite');
const LEGACY_ACCOUNT_KEY = 'mbb_legacy_fixture_key';
/** A lists:read key the fixture's sandbox created. */
const LEGACY_RESTRICTED_KEY = 'mbb_Y-fEVnfCDgJ60mFDeOvSPjmqzDekymsG';
const cli = join(__dirname, '..', 'dist', 'cli.js');

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The fixture was written on one day; the copy is made to look written just now. Its pending delivery is due at a
 * fixed wall-clock time (retries run in real time), and its Idempotency-Keys expire 24 h after that day: both are
 * moved an hour past now, so the delivery is still pending (not attempted while the test reads) and the keys are
 * still remembered whenever the test runs.
 */
function freshenFixtureCopy(file: string): void {
	const db = new DatabaseSync(file);
	try {
		const row = db.prepare("SELECT json FROM slices WHERE name = 'deliveries'").get() as { json: string };
		const state = JSON.parse(row.json) as { deliveries: { status: string; nextAttemptAt: number | null }[] };
		const pending = state.deliveries.filter((delivery) => delivery.status === 'pending');
		expect(pending).toHaveLength(1);
		for (const delivery of pending) delivery.nextAttemptAt = Date.now() + 3_600_000;
		db.prepare("UPDATE slices SET json = ? WHERE name = 'deliveries'").run(JSON.stringify(state));
		const keysRow = db.prepare("SELECT json FROM slices WHERE name = 'idempotency'").get() as { json: string };
		const keys = JSON.parse(keysRow.json) as { entries: Record<string, { expiresAt: number }> };
		expect(Object.keys(keys.entries)).toContain('/list/row/add account legacy-3');
		for (const entry of Object.values(keys.entries)) entry.expiresAt = Date.now() + 3_600_000;
		db.prepare("UPDATE slices SET json = ? WHERE name = 'idempotency'").run(JSON.stringify(keys));
	} finally {
		db.close();
	}
}

describe('sandbox data file', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'sandbox-data-file-'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('a data file of the sandbox before the SQLite store is migrated once and opens with all its data', async () => {
		const file = join(dir, 'legacy.sqlite');
		copyFileSync(LEGACY_FIXTURE, file);
		freshenFixtureCopy(file);
		const open = async () => openSandbox({ dataFile: file, retrySchedule: [3600] });
		for (const round of [1, 2]) {
			const { sandbox, api, close } = await open();
			try {
				expect(sandbox.adminKey).toBe(LEGACY_ACCOUNT_KEY);
				const rows = await api.get('/list/rows/get', { list: 'Legacy' });
				const expected = round === 1 ? [1, 3, 4, 5] : [1, 3, 4, 5, 6];
				expect(rows.body.items.map((row: { id: number }) => row.id)).toEqual(expected);
				expect(rows.body.items[0].row).toEqual({ Name: 'row 1', Score: 1 });
				if (round === 1) {
					// Ids go on after the migrated ones; the deleted row 2 is not handed out again.
					const added = await api.post('/list/row/add', { list: 'Legacy', row: { Name: 'row 6', Score: 6 } });
					expect(added.body.row.id).toBe(6);
					// A remembered Idempotency-Key is still recognised after the migration.
					const repeat = await api.post(
						'/list/row/add',
						{ list: 'Legacy', row: { Name: 'row 3', Score: 3 } },
						{ 'idempotency-key': 'legacy-3' },
					);
					expect(repeat.body.row.id).toBe(3);
				}
				const card = (await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'legacy-1' })).body.subscriber;
				expect(card).toMatchObject({ name: 'Legacy One', variables: { '1001': { color: 'green' } } });
				const chat = await api.get('/subscriber/chat/get', { botid: 'bot_tg', clientid: 'legacy-1' });
				expect(chat.body.items.map((message: { text: string }) => message.text)).toEqual(['legacy message']);
				const created = await api.post('/subscriber/create', { botid: 'bot_tg', clientid: `after-migration-${round}` });
				// 6 demo subscribers and 2 of the fixture: the next card number is 9, then 10.
				expect(created.body.subscriber.id).toBe(8 + round);
				expect((await new TestClient(sandbox.baseUrl, LEGACY_RESTRICTED_KEY).get('/list/all')).status).toBe(200);
				const hooks = (await api.get('/hook/list')).body.items;
				expect(hooks.map((hook: { name: string }) => hook.name)).toEqual(['legacy hook']);
				const deliveries = (await api.get('/hook/deliveries')).body.items;
				expect(deliveries[deliveries.length - 1]).toMatchObject({
					status: 'pending',
					attempts: [expect.objectContaining({ n: 1, status: null })],
				});
				const items = (await api.post('/catalog/get', { webappid: '1' })).body.link;
				const file = (await (await fetch(items)).json()) as { items: { title: string }[] };
				expect(file.items.map((item) => item.title)).toContain('Legacy item');
			} finally {
				await close();
			}
		}
		const db = new DatabaseSync(file, { readOnly: true });
		try {
			const tables = (
				db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
			).map((row) => row.name);
			expect(tables).not.toContain('slices');
			expect(tables).toEqual(expect.arrayContaining(['documents', 'records']));
		} finally {
			db.close();
		}
	});

	const legacyWith = (name: string, change: (db: DatabaseSync) => void) => {
		const file = join(dir, name);
		copyFileSync(LEGACY_FIXTURE, file);
		const db = new DatabaseSync(file);
		change(db);
		db.close();
		return file;
	};

	const currentWith = async (name: string, change: (db: DatabaseSync) => void) => {
		const file = join(dir, name);
		await (await openSandbox({ dataFile: file })).close();
		const db = new DatabaseSync(file);
		change(db);
		db.close();
		return file;
	};

	/** The error a start on `file` fails with; a sandbox that starts instead is closed (and the test fails). */
	const refusal = (file: string): Promise<Error> =>
		startSandbox({ port: 0, dataFile: file }).then(
			async (sandbox) => {
				await sandbox.close();
				return new Error(`the sandbox started on ${file}`);
			},
			(error: Error) => error,
		);

	const foreignWith = (name: string, sql: string) => {
		const file = join(dir, name);
		const db = new DatabaseSync(file);
		db.exec(sql);
		db.close();
		return file;
	};

	const damaged: [string, () => string | Promise<string>, RegExp][] = [
		[
			'garbage bytes',
			() => {
				const file = join(dir, 'garbage.db');
				writeFileSync(file, Buffer.from('this is not a database at all, just some bytes\n'.repeat(100)));
				return file;
			},
			/is not a sandbox data file \(not an SQLite database\)/,
		],
		[
			'an SQLite file of another application',
			() => {
				const file = join(dir, 'foreign.db');
				const db = new DatabaseSync(file);
				db.exec(
					"CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO users (email) VALUES ('a@example.com');",
				);
				db.close();
				return file;
			},
			/is an SQLite database of another application \(tables: users\)/,
		],
		[
			'a truncated SQLite file',
			() => {
				const file = join(dir, 'truncated.db');
				copyFileSync(LEGACY_FIXTURE, file);
				truncateSync(file, 8192);
				return file;
			},
			/is damaged \(SQLite: /,
		],
		[
			'a truncated section',
			() =>
				legacyWith('truncated-section.db', (db) =>
					db.exec("UPDATE slices SET json = substr(json, 1, 100) WHERE name = 'lists'"),
				),
			/section "lists" is not valid JSON/,
		],
		[
			'a section of the wrong shape',
			() =>
				legacyWith('wrong-section.db', (db) =>
					db.exec(`UPDATE slices SET json = '{"keys":"none"}' WHERE name = 'keys'`),
				),
			/section "keys" has the wrong shape \(keys\.keys is not an array\)/,
		],
		[
			'a record of the wrong shape',
			() =>
				currentWith('wrong-record.db', (db) =>
					db.exec(`UPDATE records SET json = '{"id":1}' WHERE kind = 'subscriber' AND key = 2`),
				),
			/record subscriber 2 has the wrong shape/,
		],
		// Who may revoke a key follows its creator: a creator that is not a key id is refused, not read as "none".
		[
			'a key whose creator is not a key id',
			() =>
				currentWith('key-creator.db', (db) =>
					db.exec(`UPDATE documents SET json = json_set(json, '$.keys[0].createdBy', 7) WHERE name = 'keys'`),
				),
			/document "keys" has the wrong shape \(keys\[0\]\.createdBy is not a string\)/,
		],
		[
			'a data file of ours without its tables',
			() => currentWith('no-tables.db', (db) => db.exec('DROP TABLE documents')),
			/is damaged \(no such table: documents\)/,
		],
		[
			'a data file of a newer sandbox',
			() => currentWith('newer.db', (db) => db.exec('PRAGMA user_version = 99')),
			/was written by a newer sandbox \(data schema 99/,
		],
		// A chat section is keyed by subscriber number: "abc" would become a message of subscriber NaN.
		[
			'an old data file with a chat of no subscriber number',
			() =>
				legacyWith('chat-key.db', (db) => {
					db.exec("DELETE FROM slices WHERE name <> 'chats'");
					db.prepare("UPDATE slices SET json = ? WHERE name = 'chats'").run(
						JSON.stringify({
							chats: { abc: [{ id: 1, direction: 'in', text: 'hi', buttons: [], time: '2026-11-14T11:30:40.894Z' }] },
							nextId: 2,
						}),
					);
				}),
			/is damaged: section "chats" has the wrong shape \(chats\.chats\.abc is not a subscriber number\); /,
		],
		// 1e999 passes the old section's check (it parses as Infinity), but the migrated record holds null.
		[
			'an old data file whose migrated records have the wrong shape',
			() =>
				legacyWith('migrated-wrong.db', (db) => {
					db.exec(
						`UPDATE slices SET json = replace(json, '{"id":1,"direction"', '{"id":1e999,"direction"') WHERE name = 'chats'`,
					);
				}),
			/is damaged: its old sections do not convert \(record chat Infinity has the wrong shape \(id is not a number\)\); /,
		],
		[
			'an SQLite file with only a user_version',
			() => foreignWith('user-version.db', 'PRAGMA user_version = 42'),
			/^\S+user-version\.db is an SQLite database of another application \(user_version 42\); /,
		],
		[
			'an SQLite file with only a view',
			() => foreignWith('view.db', 'CREATE VIEW answer AS SELECT 42 AS value'),
			/view\.db is an SQLite database of another application \(views: answer\); /,
		],
		[
			'an SQLite file in WAL mode with a user_version',
			() => foreignWith('wal.db', 'PRAGMA journal_mode = WAL; PRAGMA user_version = 3'),
			/wal\.db is an SQLite database of another application \(user_version 3\); /,
		],
		[
			'an old data file with another object beside its table',
			() =>
				legacyWith('legacy-trigger.db', (db) =>
					db.exec('CREATE TRIGGER keep AFTER DELETE ON slices BEGIN SELECT 1; END'),
				),
			/is an SQLite database of another application \(tables: slices; triggers: keep\); /,
		],
	];

	test.each(damaged)(
		'%s is refused at start with one line naming the file, and nothing is written to it',
		async (_case, make, problem) => {
			const file = await make();
			const before = sha256(file);
			expect((await refusal(file)).message).toMatch(problem);
			expect((await refusal(file)).message).toContain(`${file} `);
			expect(sha256(file)).toBe(before);
			expect(existsSync(`${file}-wal`) && readFileSync(`${file}-wal`).length > 0).toBe(false);
			expect(existsSync(`${file}-journal`)).toBe(false);
		},
	);

	test('an empty (0-byte) file is made a data file like a missing one, with demo data', async () => {
		const file = join(dir, 'empty.sqlite');
		writeFileSync(file, '');
		const { api, close } = await openSandbox({ dataFile: file });
		try {
			expect((await api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(3);
		} finally {
			await close();
		}
		const db = new DatabaseSync(file, { readOnly: true });
		try {
			expect(db.prepare('PRAGMA application_id').get()).toEqual({ application_id: 0x4d424253 });
			expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: 1 });
		} finally {
			db.close();
		}
	});

	test('a data file in use by a running sandbox is refused by a second one, which writes nothing', async () => {
		const file = join(dir, 'in-use.sqlite');
		const first = await openSandbox({ dataFile: file });
		try {
			await expect(startSandbox({ port: 0, dataFile: file })).rejects.toThrow(
				`${file} is in use by another running sandbox`,
			);
			const added = await first.api.post('/list/rows/add', { list: 'Leads', rows: [{ Name: 'still mine' }] });
			expect(added.body.rows[0].id).toBe(4);
		} finally {
			await first.close();
		}
		const again = await openSandbox({ dataFile: file });
		try {
			expect((await again.api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(4);
		} finally {
			await again.close();
		}
	});

	test('the command line prints the refusal as one line and exits', () => {
		const file = join(dir, 'garbage-cli.db');
		writeFileSync(file, 'garbage');
		const run = spawnSync(process.execPath, [cli, '--port', '0', '--data', file], { encoding: 'utf8', timeout: 15000 });
		expect(run.status).toBe(1);
		expect(run.stdout).toBe('');
		const lines = run.stderr.split('\n').filter(Boolean);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain(file);
		expect(lines[0]).toContain('pass another --data file');
		expect(readFileSync(file, 'utf8')).toBe('garbage');
	});
});
