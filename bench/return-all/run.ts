/**
 * Return All benchmark: reads a list of 100,000 rows through the Messenger Bot Builder node,
 * executed by n8n-core's engine, from the sandbox with its 10 requests/s limit on.
 *
 * The ceiling is what the limit allows: 10 requests/s x the sandbox's largest page (1,000 rows).
 * In the same run the same list is read at 100 rows a page (the node's page size before it learned
 * the largest page: a sandbox capping pages at 100 plays that). Both reads must return every row
 * exactly once and in order. Goal: the node's read at least 0.8 of the ceiling.
 *
 *   bench/return-all/run.sh [rows] [rows read at 100 per page]
 *
 * The rows are loaded through the API with many keys side by side (the limit is per key); the
 * read uses the account key alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { byId } from '../../test/support/nodeRun';
import { startTestBed, type NodeTestBed } from '../../test/support/sandbox';
import { REQUESTS_PER_SECOND } from '../../nodes/MessengerBotBuilder/transport/pacing';

const FULL_ROWS = 100_000;
const ROWS = Number(process.argv[2] ?? FULL_ROWS);
/** Fewer rows (the tests' short form) are too few to judge a rate: the goal line then only informs. */
const SHORT_FORM = ROWS < FULL_ROWS;
/** The same read at 100 rows a page (ten times as long: about 100 s for 100,000 rows); a second argument shortens it. */
const SMALL_PAGE_ROWS = Number(process.argv[3] ?? ROWS);
const SMALL_PAGE = 100;
const LOAD_CHUNK = 500;
/** Keys loading rows side by side. */
const LOAD_KEYS = 20;

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

/** Loads `count` rows into a new list through many keys at once (each key has its own 10 requests/s). */
async function loadList(bed: NodeTestBed, name: string, count: number): Promise<number> {
	const { list } = await bed.api.call('/list/create', { name, headers: ['N', 'Name', 'Email'] });
	const chunks = Array.from({ length: Math.ceil(count / LOAD_CHUNK) }, (_, chunk) => chunk * LOAD_CHUNK);
	const keys = await Promise.all(Array.from({ length: LOAD_KEYS }, () => bed.api.keyWith(['lists:write'])));
	await Promise.all(
		keys.map(async (key, lane) => {
			for (let index = lane; index < chunks.length; index += LOAD_KEYS) {
				const start = chunks[index];
				const rows = Array.from({ length: Math.min(LOAD_CHUNK, count - start) }, (_, n) => {
					const k = start + n;
					return { N: String(k), Name: `Customer ${k}`, Email: `customer${k}@example.com` };
				});
				await bed.api.call('/list/rows/add', { listid: list.id, rows }, key);
			}
		}),
	);
	return list.id as number;
}

async function main(): Promise<void> {
	const bed = await startTestBed({ rateLimit: REQUESTS_PER_SECOND, rowCap: ROWS });
	const smallPages = await startTestBed({
		rateLimit: REQUESTS_PER_SECOND,
		rowCap: SMALL_PAGE_ROWS,
		maxPage: SMALL_PAGE,
		maxPageMode: 'cap',
	});
	try {
		const ids = [
			await loadList(bed, 'Bench read', ROWS),
			await loadList(smallPages, 'Bench read small pages', SMALL_PAGE_ROWS),
		];
		{
			const largestPage = bed.sandbox.context.options.maxPage;
			const ceiling = REQUESTS_PER_SECOND * largestPage;
			const read = async (target: typeof bed, listid: number, count: number) => {
				const startedAt = performance.now();
				const rows = await target.node.json({
					resource: 'listRow',
					operation: 'getMany',
					listId: byId(listid),
					returnAll: true,
					// The service's row as it is: the check reads each row's first value.
					output: 'raw',
				});
				const elapsed = seconds(startedAt);
				const values = rows.map((row) => (row.values as string[])[0]);
				// Rows were loaded by parallel lanes: every N exactly once, and in the list's order (row ids rising).
				const everyOnce =
					values.length === count &&
					[...values]
						.map(Number)
						.sort((a, b) => a - b)
						.every((value, n) => value === n);
				const inOrder = rows.every((row, n) => n === 0 || Number(row.id) > Number(rows[n - 1].id));
				const exactlyOnceInOrder = everyOnce && inOrder;
				const requests = (await target.api.logOf('/list/rows/get')).length;
				return {
					rows: values.length,
					seconds: +elapsed.toFixed(2),
					rowsPerSecond: Math.round(count / elapsed),
					ratioToCeiling: +(count / elapsed / ceiling).toFixed(3),
					requests,
					exactlyOnceInOrder,
				};
			};
			const large = await read(bed, ids[0], ROWS);
			const small = await read(smallPages, ids[1], SMALL_PAGE_ROWS);
			const refused = (await bed.api.logOf('/list/rows/get')).filter((entry) => entry.status === 429).length;
			const report = {
				ceilingRowsPerSecond: ceiling,
				node: large,
				pagesOf100: small,
				serviceAnswered429: refused,
				goalMet: large.ratioToCeiling >= 0.8 && large.exactlyOnceInOrder && small.exactlyOnceInOrder,
			};
			console.log(
				[
					`Return All of ${ROWS} rows through the node, service limit ${REQUESTS_PER_SECOND} requests/s, largest page ${largestPage}:`,
					`  node (learns the largest page): ${large.rowsPerSecond} rows/s in ${large.seconds} s, ${large.requests} requests`,
					`  ${large.ratioToCeiling} of the ${ceiling} rows/s ceiling`,
					`  same read at ${SMALL_PAGE} per page (${SMALL_PAGE_ROWS} rows): ${small.rowsPerSecond} rows/s = ${small.ratioToCeiling} of the ceiling, ${small.requests} requests`,
					`  429 answers to the reads: ${refused}; every row exactly once, in order: ${large.exactlyOnceInOrder} / ${small.exactlyOnceInOrder}`,
					`  goal (>= 0.8 of the ceiling): ${SHORT_FORM ? 'informational, not checked in the short form' : report.goalMet ? 'met' : 'NOT met'}`,
				].join('\n'),
			);
			const outDir = join(__dirname, '..', '..', '..');
			mkdirSync(outDir, { recursive: true });
			writeFileSync(join(outDir, 'return-all.json'), `${JSON.stringify(report, null, 2)}\n`);
			const correct = large.exactlyOnceInOrder && small.exactlyOnceInOrder;
			if (!(SHORT_FORM ? correct : report.goalMet)) process.exitCode = 1;
		}
	} finally {
		await smallPages.close();
		await bed.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
