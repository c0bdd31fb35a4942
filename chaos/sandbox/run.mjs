#!/usr/bin/env node
/**
 * Chaos run of the sandbox's store: writes stream in from several workers while the sandbox (the
 * built command line, `--data` on one file) is killed with SIGKILL again and again and restarted.
 * Then it checks, against what the clients were told:
 *
 * - every acknowledged write is present (single rows with an Idempotency-Key, batches of rows,
 *   subscribers), with the id it was acknowledged with (no id handed out twice);
 * - nothing is doubled: a single-row write cut off by a kill is retried with the same
 *   Idempotency-Key after the restart and exists exactly once; a cut-off batch exists 0 or 1 times;
 * - every subscriber.new event of an acknowledged new subscriber reaches the hook receiver
 *   (deliveries survive the kills).
 *
 * Usage: node chaos/sandbox/run.mjs [--kills 20] [--workers 4] [--min-ms 300] [--max-ms 1200] [--writes-per-round 20] [--json]
 * Each kill comes after a random time between min-ms and max-ms and, on a busy machine, not before the writers have
 * had `writes-per-round` rows and a fifth as many subscribers acknowledged since the last start (60 s at most).
 * Prints the figures; exits 1 when a check fails. `npm run chaos:sandbox` runs the full form.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const cli = new URL('../../sandbox/dist/cli.js', import.meta.url).pathname;
const { values: args } = parseArgs({
	options: {
		kills: { type: 'string', default: '20' },
		workers: { type: 'string', default: '4' },
		'min-ms': { type: 'string', default: '300' },
		'max-ms': { type: 'string', default: '1200' },
		'writes-per-round': { type: 'string', default: '20' },
		json: { type: 'boolean', default: false },
	},
});
const KILLS = Number(args.kills);
const WORKERS = Number(args.workers);
const MIN_MS = Number(args['min-ms']);
const MAX_MS = Number(args['max-ms']);
const WRITES_PER_ROUND = Number(args['writes-per-round']);
/** Longest wait for a round's writes: a sandbox that acknowledges nothing is a failure the read-back reports. */
const ROUND_DEADLINE_MS = 60_000;
const KEY = 'mbb_chaos_account_key';
const say = (line) => {
	if (!args.json) console.log(line);
};

if (!existsSync(cli)) {
	console.error(`chaos: ${cli} is missing: run "npm run build" first`);
	process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'sandbox-chaos-'));
const dataFile = join(dir, 'state.sqlite');

/** The hook receiver: records the client ids of subscriber.new events. */
const delivered = new Set();
const receiver = createServer((req, res) => {
	const chunks = [];
	req.on('data', (chunk) => chunks.push(chunk));
	req.on('end', () => {
		try {
			const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			if (event.type === 'subscriber.new') delivered.add(event.data.subscriber.clientid);
		} catch {
			// Counted as not delivered.
		}
		res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
	});
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

let child;
let baseUrl;
/** Resolves while the sandbox is up; replaced by a pending promise while it is down (kill to ready). */
let markUp;
let up = new Promise((resolve) => (markUp = resolve));

function startSandbox() {
	child = spawn(
		process.execPath,
		[
			cli,
			'--port',
			'0',
			'--data',
			dataFile,
			'--admin-key',
			KEY,
			'--rate-limit',
			'0',
			'--row-cap',
			'10000000',
			'--retry-schedule',
			'0.2,0.5,1,1,1,1,1,1',
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let output = '';
	return new Promise((resolve, reject) => {
		const onData = (chunk) => {
			output += chunk.toString();
			const match = /Sandbox ready: (\S+)/.exec(output);
			if (match && /Account API key/.test(output)) {
				child.stdout.off('data', onData);
				baseUrl = match[1];
				markUp();
				resolve();
			}
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', (chunk) => (output += chunk.toString()));
		child.once('exit', (code) => {
			if (!baseUrl || !output.includes('Sandbox ready'))
				reject(new Error(`sandbox exited (${code}) before it was ready: ${output}`));
		});
	});
}

async function kill() {
	up = new Promise((resolve) => (markUp = resolve));
	baseUrl = undefined;
	const exited = once(child, 'exit');
	child.kill('SIGKILL');
	await exited;
}

/** POSTs to the sandbox; throws `lost` when the request got no answer (the sandbox was killed). */
async function post(path, body, headers = {}) {
	await up;
	const url = baseUrl;
	let response;
	try {
		response = await fetch(`${url}${path}`, {
			method: 'POST',
			headers: { authorization: KEY, 'content-type': 'application/json', ...headers },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(10_000),
		});
		const text = await response.text();
		return { status: response.status, body: JSON.parse(text) };
	} catch (error) {
		const lost = new Error(`no answer from ${path}: ${error.message}`);
		lost.lost = true;
		throw lost;
	}
}

const figures = {
	kills: 0,
	rowAdds: 0,
	batchAdds: 0,
	subscribers: 0,
	cutOffSingles: 0,
	cutOffBatches: 0,
	cutOffSubscribers: 0,
	notAnswered: 0,
};
/** token -> acknowledged row id */
const acknowledgedRows = new Map();
/** tokens of batches cut off by a kill: each may exist at most once */
const inDoubt = new Set();
/** clientid -> acknowledged card number */
const acknowledgedCards = new Map();
/** client ids whose creation was acknowledged with created: true, or cut off then answered created: false */
const newCards = new Set();
const problems = [];

let stopping = false;
let sequence = 0;

/** Retries a request cut off by a kill until it is answered (same body, same Idempotency-Key). */
async function untilAnswered(path, body, headers, onCutOff) {
	for (let attempt = 0; attempt < 50; attempt++) {
		try {
			return await post(path, body, headers);
		} catch (error) {
			if (!error.lost) throw error;
			onCutOff();
		}
	}
	figures.notAnswered++;
	return undefined;
}

async function worker(index) {
	while (!stopping) {
		const n = ++sequence;
		const roll = n % 10;
		if (roll < 7) {
			const token = `w${index}-r${n}`;
			let cut = false;
			const answer = await untilAnswered(
				'/list/row/add',
				{ list: 'Chaos', row: { Token: token, Worker: String(index) } },
				{ 'idempotency-key': token },
				() => {
					if (!cut) figures.cutOffSingles++;
					cut = true;
				},
			);
			if (!answer) continue;
			if (answer.status !== 200)
				problems.push(`/list/row/add ${token} answered ${answer.status} ${JSON.stringify(answer.body)}`);
			else {
				acknowledgedRows.set(token, answer.body.row.id);
				figures.rowAdds++;
			}
		} else if (roll < 9) {
			const tokens = [0, 1, 2].map((item) => `w${index}-b${n}-${item}`);
			try {
				const answer = await post('/list/rows/add', {
					list: 'Chaos',
					rows: tokens.map((token) => ({ Token: token, Worker: String(index) })),
				});
				if (answer.status !== 200) problems.push(`/list/rows/add answered ${answer.status}`);
				else {
					answer.body.rows.forEach((row, item) => acknowledgedRows.set(tokens[item], row.id));
					figures.batchAdds++;
				}
			} catch (error) {
				if (!error.lost) throw error;
				figures.cutOffBatches++;
				for (const token of tokens) inDoubt.add(token);
			}
		} else {
			const clientid = `chaos-${index}-${n}`;
			let cut = false;
			const answer = await untilAnswered('/subscriber/create', { botid: 'bot_tg', clientid }, {}, () => {
				if (!cut) figures.cutOffSubscribers++;
				cut = true;
			});
			if (!answer) continue;
			if (answer.status !== 200) problems.push(`/subscriber/create ${clientid} answered ${answer.status}`);
			else {
				acknowledgedCards.set(clientid, answer.body.subscriber.id);
				if (answer.body.created || cut) newCards.add(clientid);
				figures.subscribers++;
			}
		}
	}
}

const started = performance.now();
try {
	await startSandbox();
	const setup = await post('/list/create', { name: 'Chaos', headers: ['Token', 'Worker'] });
	if (setup.status !== 200) throw new Error(`setup failed: ${JSON.stringify(setup.body)}`);
	const hook = await post('/hook/create', { name: 'chaos', url: receiverUrl, events: ['subscriber.new'] });
	if (hook.status !== 200) throw new Error(`hook setup failed: ${JSON.stringify(hook.body)}`);

	const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
	for (let round = 1; round <= KILLS; round++) {
		const rowsBefore = acknowledgedRows.size;
		const cardsBefore = acknowledgedCards.size;
		const deadline = Date.now() + ROUND_DEADLINE_MS;
		await new Promise((resolve) => setTimeout(resolve, MIN_MS + Math.random() * (MAX_MS - MIN_MS)));
		while (
			(acknowledgedRows.size - rowsBefore < WRITES_PER_ROUND ||
				acknowledgedCards.size - cardsBefore < Math.ceil(WRITES_PER_ROUND / 5)) &&
			Date.now() < deadline
		) {
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		await kill();
		figures.kills++;
		await startSandbox();
		say(
			`chaos: kill ${round}/${KILLS} done, ${acknowledgedRows.size} rows and ${acknowledgedCards.size} subscribers acknowledged so far`,
		);
	}
	await new Promise((resolve) => setTimeout(resolve, MIN_MS));
	stopping = true;
	await Promise.all(workers);

	// Read everything back.
	const rowsByToken = new Map();
	const idsSeen = new Set();
	for (let offset = 0; ; offset += 1000) {
		const page = await post('/list/rows/get', { list: 'Chaos', limit: 1000, offset });
		for (const row of page.body.items) {
			if (idsSeen.has(row.id)) problems.push(`row id ${row.id} listed twice`);
			idsSeen.add(row.id);
			const list = rowsByToken.get(row.row.Token) ?? [];
			list.push(row.id);
			rowsByToken.set(row.row.Token, list);
		}
		if (page.body.items.length < 1000) break;
	}
	let lost = 0;
	let doubled = 0;
	let reused = 0;
	for (const [token, id] of acknowledgedRows) {
		const ids = rowsByToken.get(token) ?? [];
		if (ids.length === 0) lost++;
		else if (ids.length > 1) doubled++;
		else if (ids[0] !== id) reused++;
	}
	for (const token of inDoubt) if ((rowsByToken.get(token) ?? []).length > 1) doubled++;
	const known = new Set([...acknowledgedRows.keys(), ...inDoubt]);
	const strangers = [...rowsByToken.keys()].filter((token) => !known.has(token)).length;
	for (const [clientid, id] of acknowledgedCards) {
		const card = await post('/subscriber/get', { subscriber: id });
		if (card.status !== 200) lost++;
		else if (card.body.subscriber.clientid !== clientid) reused++;
	}
	// Deliveries: every new subscriber's event reaches the receiver (retries resume after each restart).
	const deadline = Date.now() + 20_000;
	while (Date.now() < deadline && [...newCards].some((clientid) => !delivered.has(clientid)))
		await new Promise((resolve) => setTimeout(resolve, 200));
	const undelivered = [...newCards].filter((clientid) => !delivered.has(clientid)).length;

	const result = {
		...figures,
		acknowledgedRows: acknowledgedRows.size,
		acknowledgedSubscribers: acknowledgedCards.size,
		batchRowsInDoubt: inDoubt.size,
		batchRowsInDoubtPresent: [...inDoubt].filter((token) => rowsByToken.has(token)).length,
		rowsStored: idsSeen.size,
		lost,
		doubled,
		reused,
		strangers,
		events: newCards.size,
		undelivered,
		problems: problems.slice(0, 10),
		seconds: Math.round((performance.now() - started) / 100) / 10,
	};
	const ok =
		lost === 0 &&
		doubled === 0 &&
		reused === 0 &&
		strangers === 0 &&
		undelivered === 0 &&
		problems.length === 0 &&
		figures.notAnswered === 0;
	if (args.json) console.log(JSON.stringify({ ok, ...result }));
	else {
		console.log(`chaos: ${result.kills} kills with SIGKILL in ${result.seconds} s`);
		console.log(
			`  acknowledged: ${result.acknowledgedRows} rows (${result.rowAdds} single adds with Idempotency-Key, ${result.batchAdds} batches of 3), ${result.acknowledgedSubscribers} subscribers`,
		);
		console.log(
			`  cut off by a kill: ${result.cutOffSingles} single adds (retried with the same key), ${result.cutOffBatches} batches (${result.batchRowsInDoubtPresent} of their ${result.batchRowsInDoubt} rows committed), ${result.cutOffSubscribers} subscriber creations`,
		);
		console.log(
			`  lost: ${lost}, doubled: ${doubled}, id reused: ${reused}, unknown rows: ${strangers}, subscriber.new events not delivered: ${undelivered} of ${result.events}`,
		);
		if (problems.length > 0) console.log(`  problems: ${problems.slice(0, 10).join('; ')}`);
		console.log(ok ? 'chaos: OK' : 'chaos: FAILED');
	}
	process.exitCode = ok ? 0 : 1;
} finally {
	stopping = true;
	if (child && child.exitCode === null) {
		const exited = once(child, 'exit');
		child.kill('SIGKILL');
		await exited;
	}
	receiver.closeAllConnections();
	receiver.close();
	rmSync(dir, { recursive: true, force: true });
}
