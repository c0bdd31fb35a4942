/**
 * The same scenarios in queue mode (main + one worker, Redis, PostgreSQL); every execution must have run on the
 * worker. A second worker joins for one test: executions at once on both workers share one key, none fails.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startE2eEnvironment, withN8nLogs, type E2eEnvironment } from '../lib/environment.ts';
import type { Execution } from '../lib/n8nApi.ts';
import { runSharedKeyScenario } from '../scenarios/sharedKeyScenario.ts';
import { runActionScenario } from '../scenarios/actionScenario.ts';
import { runSendAndWaitScenario } from '../scenarios/sendAndWaitScenario.ts';
import { runTriggerScenario } from '../scenarios/triggerScenario.ts';

let env: E2eEnvironment;

before(
	async () => {
		// n8n recommends PostgreSQL for queue mode: main and the worker share it (regular mode stays on SQLite).
		env = await startE2eEnvironment('queue', { database: 'postgres' });
	},
	{ timeout: 240_000 },
);

after(async () => {
	await env?.close();
});

/** The worker (by name) that ran each execution: exactly one worker logs its start and its end. */
function workersOf(executions: Execution[]): string[] {
	return executions.map(({ id }) => {
		const ran = env.n8n.workers.filter((worker) => worker.log.grep(`Worker started execution ${id} `).length === 1);
		assert.equal(ran.length, 1, `execution ${id} started on exactly one worker`);
		assert.equal(
			ran[0].log.grep(`Worker finished execution ${id} `).length,
			1,
			`execution ${id} finished on its worker`,
		);
		return ran[0].name;
	});
}

test(
	'queue mode: 12 executions at once on two workers share one key at the service limit; none fails, nothing doubled',
	{ timeout: 240_000 },
	async () => {
		// A second worker. The first runs at most 10 jobs at once, so 12 executions started together spread over both.
		const second = await env.n8n.addWorker();
		try {
			await withN8nLogs(env, async () => {
				const { executions } = await runSharedKeyScenario(env, { executions: 12, messages: 10 });
				assert.equal(new Set(workersOf(executions)).size, 2, 'both workers ran executions');
			});
		} finally {
			await env.n8n.removeWorker(second);
		}
	},
);

/** The worker logs the start and the end of every job it runs; main never runs production executions in queue mode. */
function assertRanOnWorker(executions: Execution[]): void {
	const worker = env.n8n.worker!;
	for (const { id } of executions) {
		assert.equal(worker.log.grep(`Worker started execution ${id} `).length, 1, `execution ${id} started on the worker`);
		assert.equal(
			worker.log.grep(`Worker finished execution ${id} `).length,
			1,
			`execution ${id} finished on the worker`,
		);
		assert.equal(env.n8n.main.log.grep(`Worker started execution ${id} `).length, 0);
	}
}

test('queue mode: action node runs on the worker', { timeout: 180_000 }, async () => {
	await withN8nLogs(env, async () => {
		const { execution } = await runActionScenario(env);
		assertRanOnWorker([execution]);
	});
});

test(
	'queue mode: trigger (test event, events, forged and repeated deliveries), executions run on the worker',
	{ timeout: 120_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const { executions } = await runTriggerScenario(env);
			assertRanOnWorker(executions);
		});
	},
);

test(
	'queue mode: send and wait (previews, confirm page, loop replay, simultaneous taps, Free Text, Custom Form, time limit), resumed executions run on the worker',
	{ timeout: 300_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const asked = await runSendAndWaitScenario(env);
			const worker = env.n8n.worker!;
			for (const { execution, resumes } of asked) {
				// Once when the execution started, once each time it resumed.
				assert.equal(
					worker.log.grep(`Worker started execution ${execution.id} `).length,
					1 + resumes,
					`execution ${execution.id} started and resumed on the worker`,
				);
				assert.equal(env.n8n.main.log.grep(`Worker started execution ${execution.id} `).length, 0);
			}
		});
	},
);
