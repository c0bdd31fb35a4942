/**
 * Multi-worker benchmark: several processes (like n8n queue-mode workers) each run the built node
 * through n8n-core's engine, all with one API key, against one sandbox limiting that key to
 * 10 requests/s, each sending its messages. The node's pacing is per process and shares nothing:
 * it must adapt to the others through 429s alone.
 *
 * Prints failed items, how many times each item's message was recorded by the service (exactly
 * once is the goal), and the aggregate rate of messages over the limit. Goal: 0 failed, 0 doubled,
 * at least 0.8 of the limit.
 *
 *   bench/multi-worker/run.sh [workers=6] [messages per worker=60]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestBed } from '../../test/support/sandbox';
import { REQUESTS_PER_SECOND } from '../../nodes/MessengerBotBuilder/transport/pacing';
import { messageText } from './messages';

const WORKERS = Number(process.argv[2] ?? 6);
const FULL_MESSAGES = 60;
const MESSAGES = Number(process.argv[3] ?? FULL_MESSAGES);
/** Fewer messages (the tests' short form) are too few to judge a rate: the goal line then only informs. */
const SHORT_FORM = MESSAGES < FULL_MESSAGES;
const CLIENT_ID = '100001';

interface Done {
	done: true;
	worker: number;
	items: number;
	failed: string[];
}

function once<T>(child: ChildProcess, predicate: (message: T) => boolean): Promise<T> {
	return new Promise((resolve, reject) => {
		const onMessage = (message: T) => {
			if (!predicate(message)) return;
			child.off('message', onMessage);
			resolve(message);
		};
		child.on('message', onMessage);
		child.once('exit', (code) => (code ? reject(new Error(`worker exited with ${code}`)) : undefined));
	});
}

async function main(): Promise<void> {
	const bed = await startTestBed({ rateLimit: REQUESTS_PER_SECOND });
	const children: ChildProcess[] = [];
	try {
		const sharedKey = await bed.api.keyWith(['messages:write', 'account:read']);
		for (let worker = 0; worker < WORKERS; worker++) {
			const child = fork(join(__dirname, 'worker.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
			children.push(child);
			child.send({ baseUrl: bed.baseUrl, apiKey: sharedKey, worker, messages: MESSAGES, clientId: CLIENT_ID });
		}
		await Promise.all(children.map((child) => once<{ ready?: boolean }>(child, (message) => message.ready === true)));
		const startedAt = performance.now();
		// When each worker finished: close together means the workers shared the limit fairly.
		const finished = children.map((child) =>
			once<Done>(child, (message) => message.done).then((done) => ({
				...done,
				seconds: (performance.now() - startedAt) / 1000,
			})),
		);
		for (const child of children) child.send({ go: true });
		const results = await Promise.all(finished);
		const seconds = (performance.now() - startedAt) / 1000;

		// What the service recorded: the subscriber's chat, read page by page with the account key.
		const recorded = new Map<string, number>();
		for (let offset = 0; ; offset += 1000) {
			const page = (
				await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: CLIENT_ID, limit: 1000, offset })
			).items as Array<{ text: string }>;
			for (const message of page) recorded.set(message.text, (recorded.get(message.text) ?? 0) + 1);
			if (page.length === 0) break;
		}
		const perItem = { never: 0, once: 0, more: 0 };
		for (let worker = 0; worker < WORKERS; worker++) {
			for (let item = 0; item < MESSAGES; item++) {
				const count = recorded.get(messageText(worker, item)) ?? 0;
				if (count === 0) perItem.never++;
				else if (count === 1) perItem.once++;
				else perItem.more++;
			}
		}
		const failed = results.flatMap((result) => result.failed);
		const sendLog = (await bed.api.logOf('/message/send')).filter((entry) => entry.keyId !== 'account');
		const accepted = sendLog.filter((entry) => entry.status === 200).length;
		const refused = sendLog.filter((entry) => entry.status === 429).length;
		const rate = perItem.once / seconds;
		const report = {
			workers: WORKERS,
			messagesPerWorker: MESSAGES,
			seconds: +seconds.toFixed(2),
			failedItems: failed.length,
			failures: [...new Set(failed)].slice(0, 5),
			recordedPerItem: perItem,
			workersFinishedSeconds: {
				first: +Math.min(...results.map((result) => result.seconds)).toFixed(2),
				last: +Math.max(...results.map((result) => result.seconds)).toFixed(2),
			},
			serviceAnswered429: refused,
			serviceAccepted: accepted,
			aggregateMessagesPerSecond: +rate.toFixed(2),
			ratioToLimit: +(rate / REQUESTS_PER_SECOND).toFixed(3),
			goalMet: failed.length === 0 && perItem.once === WORKERS * MESSAGES && rate / REQUESTS_PER_SECOND >= 0.8,
		};
		console.log(
			[
				`${WORKERS} worker processes x ${MESSAGES} messages, one key, service limit ${REQUESTS_PER_SECOND} requests/s:`,
				`  failed items: ${report.failedItems}${failed.length ? ` (${report.failures.join('; ')})` : ''}`,
				`  messages recorded per item: exactly once ${perItem.once}, never ${perItem.never}, more than once ${perItem.more}`,
				`  aggregate: ${report.aggregateMessagesPerSecond} messages/s in ${report.seconds} s = ${report.ratioToLimit} of the limit`,
				`  workers finished between ${report.workersFinishedSeconds.first} s and ${report.workersFinishedSeconds.last} s (fair shares end together)`,
				`  429 answers: ${refused} (waited out and repeated by the node)`,
				`  goal (0 failed, 0 doubled, >= 0.8 of the limit): ${SHORT_FORM ? 'informational, not checked in the short form' : report.goalMet ? 'met' : 'NOT met'}`,
			].join('\n'),
		);
		const outDir = join(__dirname, '..', '..', '..');
		mkdirSync(outDir, { recursive: true });
		writeFileSync(join(outDir, 'multi-worker.json'), `${JSON.stringify(report, null, 2)}\n`);
		const correct = failed.length === 0 && perItem.once === WORKERS * MESSAGES;
		if (!(SHORT_FORM ? correct : report.goalMet)) process.exitCode = 1;
	} finally {
		for (const child of children) if (child.exitCode === null) child.kill();
		await bed.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
