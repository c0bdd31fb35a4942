/**
 * Bulk import benchmark: adds 100,000 rows to a list through the Messenger Bot Builder node,
 * executed by n8n-core's engine, against the sandbox with its 10 requests/s limit on.
 *
 * Reports rows/s and the ratio to the ceiling the limit allows (10 requests/s x 500 rows), the same
 * for one request per item (measured briefly in the same run), the 429s the service answered, and
 * whether every row is present exactly once. Goal: at least 0.8 of the ceiling.
 *
 *   bench/bulk-import/run.sh [rows]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listsState } from '../../sandbox/src/domain/lists';
import { autoMapColumns, byId, mapColumns } from '../../test/support/nodeRun';
import { startTestBed } from '../../test/support/sandbox';
import { ROWS_PER_REQUEST } from '../../nodes/MessengerBotBuilder/actions/listRow/add.operation';
import { REQUESTS_PER_SECOND } from '../../nodes/MessengerBotBuilder/transport/pacing';

const FULL_ROWS = 100_000;
const ROWS = Number(process.argv[2] ?? FULL_ROWS);
/** Fewer rows (the tests' short form) are too few to judge a rate: the goal line then only informs. */
const SHORT_FORM = ROWS < FULL_ROWS;
const SINGLE_ROWS = 20;
const CEILING = REQUESTS_PER_SECOND * ROWS_PER_REQUEST;

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

async function main(): Promise<void> {
	const bed = await startTestBed({ rateLimit: REQUESTS_PER_SECOND, rowCap: ROWS * 2 });
	try {
		const bulkList = (await bed.api.call('/list/create', { name: 'Bench bulk', headers: ['N', 'Name', 'Email'] })).list;
		const singleList = (await bed.api.call('/list/create', { name: 'Bench single', headers: ['N', 'Name', 'Email'] }))
			.list;
		const rowOf = (n: number) => ({ N: String(n), Name: `Customer ${n}`, Email: `customer${n}@example.com` });
		const addTo = (listid: number) => ({
			resource: 'listRow',
			operation: 'add',
			listId: byId(listid),
			columns: autoMapColumns,
		});
		// Columns mapped by hand: the node needs no lookup of the list, so each row is exactly one request.
		const addOneTo = (listid: number) => ({
			...addTo(listid),
			columns: mapColumns({ N: '={{ $json.N }}', Name: '={{ $json.Name }}', Email: '={{ $json.Email }}' }),
		});

		// Bulk: one execution with every row as an item.
		const items = Array.from({ length: ROWS }, (_, n) => rowOf(n));
		let startedAt = performance.now();
		const output = await bed.node.items(addTo(bulkList.id), { items });
		const bulkSeconds = seconds(startedAt);

		// One request per item: one execution per row, as a workflow triggered per row would run.
		startedAt = performance.now();
		for (let n = 0; n < SINGLE_ROWS; n++) {
			await bed.node.items(addOneTo(singleList.id), { items: [rowOf(n)] });
		}
		const singleSeconds = seconds(startedAt);

		const log = await bed.api.call('/log/get', { status: 429, limit: 1000 });
		const refused = (log.items as Array<{ path: string }>).length;
		const stored = listsState(bed.sandbox.context.store).lists.find((list) => list.id === bulkList.id)!;
		const counts = new Map<string, number>();
		for (const row of stored.rows) counts.set(String(row.values[0]), (counts.get(String(row.values[0])) ?? 0) + 1);
		const exactlyOnce = counts.size === ROWS && [...counts.values()].every((count) => count === 1);
		const paired = output.every((item, n) => (item.pairedItem as { item: number }).item === n);

		const bulkRate = ROWS / bulkSeconds;
		const singleRate = SINGLE_ROWS / singleSeconds;
		const report = {
			rows: ROWS,
			ceilingRowsPerSecond: CEILING,
			bulk: {
				seconds: +bulkSeconds.toFixed(2),
				rowsPerSecond: Math.round(bulkRate),
				ratioToCeiling: +(bulkRate / CEILING).toFixed(3),
			},
			onePerItem: {
				rows: SINGLE_ROWS,
				seconds: +singleSeconds.toFixed(2),
				rowsPerSecond: +singleRate.toFixed(1),
				ratioToCeiling: +(singleRate / CEILING).toFixed(4),
			},
			serviceAnswered429: refused,
			everyRowExactlyOnce: exactlyOnce,
			outputPairedInOrder: paired,
			goalMet: bulkRate / CEILING >= 0.8 && exactlyOnce && paired,
		};
		console.log(
			[
				`bulk import of ${ROWS} rows through the node, service limit ${REQUESTS_PER_SECOND} requests/s:`,
				`  bulk (chunks of ${ROWS_PER_REQUEST}): ${report.bulk.rowsPerSecond} rows/s in ${report.bulk.seconds} s = ${report.bulk.ratioToCeiling} of the ${CEILING} rows/s ceiling`,
				`  one request per item:  ${report.onePerItem.rowsPerSecond} rows/s = ${report.onePerItem.ratioToCeiling} of the ceiling`,
				`  429 answers from the service: ${refused} (all waited out and retried by the node)`,
				`  every row present exactly once: ${exactlyOnce}; output paired in order: ${paired}`,
				`  goal (>= 0.8 of the ceiling): ${SHORT_FORM ? 'informational, not checked in the short form' : report.goalMet ? 'met' : 'NOT met'}`,
			].join('\n'),
		);
		const outDir = join(__dirname, '..', '..', '..');
		mkdirSync(outDir, { recursive: true });
		writeFileSync(join(outDir, 'bulk-import.json'), `${JSON.stringify(report, null, 2)}\n`);
		if (!(SHORT_FORM ? exactlyOnce && paired : report.goalMet)) process.exitCode = 1;
	} finally {
		await bed.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
