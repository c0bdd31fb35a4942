/**
 * `npm run dev` as a user meets it: a taken port gets one line naming the variable that moves it; a
 * second `dev` in the same clone while the first runs gets one line saying how to run another, and one
 * with a data folder of its own runs beside it without rebuilding dist/; a restart on other ports points
 * the sandbox credential at the new sandbox; with the trigger example published, every example workflow
 * succeeds twice in a row in that n8n, and so does every run the trigger example makes of the events they cause.
 * All of it beside an `npm run dev` started in the clone as a developer runs it (the registry of running instances
 * that a developer's dev uses): the test's instances keep a registry, ports and folders of their own, so
 * `npm run test:all` passes while the developer's dev runs, and that dev keeps running untouched.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { devRegistryDir } from '../lib/devInstances.ts';
import { EXAMPLE_ANSWERS, EXAMPLE_SUBSCRIBER } from '../lib/exampleAnswers.ts';
import { loadExamples } from '../lib/examples.ts';
import { assertSucceeded, waitForExecutions } from '../lib/executions.ts';
import { credentialAsEditorSees, PublicApi, runManually, signIn } from '../lib/n8nApi.ts';
import { e2eDir, outDir, repoRoot } from '../lib/paths.ts';
import { freePorts } from '../lib/ports.ts';
import { SandboxClient } from '../lib/sandbox.ts';
import { waitFor } from '../lib/waitFor.ts';

const devScript = path.join(e2eDir, 'dev.ts');
mkdirSync(outDir, { recursive: true });
const stateDir = mkdtempSync(path.join(outDir, 'dev-test-'));
/** The test's own registry of running instances (MBB_DEV_INSTANCES_DIR); a developer's dev records itself elsewhere. */
const registryDir = mkdtempSync(path.join(outDir, 'dev-test-registry-'));
const running = new Set<ChildProcess>();

after(async () => {
	for (const child of running) {
		if (child.exitCode !== null || child.signalCode !== null) continue;
		child.kill('SIGINT');
		await once(child, 'exit');
	}
	rmSync(stateDir, { recursive: true, force: true });
	rmSync(`${stateDir}-developer`, { recursive: true, force: true });
	rmSync(registryDir, { recursive: true, force: true });
});

/** The environment of a dev the test starts: its own registry, or (asDeveloper) the clone's, as `npm run dev` has it. */
function devEnv(extra: Record<string, string>, asDeveloper = false): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, ...extra, MBB_DEV_INSTANCES_DIR: registryDir };
	if (asDeveloper) delete env.MBB_DEV_INSTANCES_DIR;
	return env;
}

interface DevRun {
	child: ChildProcess;
	output: () => string;
	stop(): Promise<void>;
}

/** Starts `node e2e/dev.ts` (the package and sandbox are built by the e2e runner) and waits for its banner. */
async function startDev(
	ports: { n8n: number; sandbox: number },
	{ dir = stateDir, build = false, asDeveloper = false } = {},
): Promise<DevRun> {
	const child = spawn(process.execPath, [devScript, '--no-watch', ...(build ? [] : ['--no-build']), '--dir', dir], {
		cwd: repoRoot,
		env: devEnv({ N8N_PORT: String(ports.n8n), SANDBOX_PORT: String(ports.sandbox) }, asDeveloper),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	running.add(child);
	let output = '';
	child.stdout!.on('data', (chunk) => (output += chunk));
	child.stderr!.on('data', (chunk) => (output += chunk));
	const exited = once(child, 'exit');
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`npm run dev did not get ready in 240 s:\n${output.slice(-3000)}`)),
			240_000,
		);
		const check = () => {
			if (output.includes('Ctrl+C stops everything.')) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout!.on('data', check);
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`npm run dev exited (${code}) before it was ready:\n${output.slice(-3000)}`));
		});
	});
	return {
		child,
		output: () => output,
		async stop() {
			child.kill('SIGINT');
			const [code] = await exited;
			running.delete(child);
			assert.equal(code, 0, `npm run dev did not stop cleanly:\n${output.slice(-2000)}`);
		},
	};
}

/** Runs `node e2e/dev.ts` that must refuse to start; returns its exit code and output. */
async function refusedDev(
	env: Record<string, string>,
	{ build = false } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(
		process.execPath,
		[devScript, '--no-watch', ...(build ? [] : ['--no-build']), '--dir', stateDir],
		{
			cwd: repoRoot,
			env: devEnv(env),
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk) => (stdout += chunk));
	child.stderr.on('data', (chunk) => (stderr += chunk));
	const [code] = await once(child, 'exit');
	return { code, stdout, stderr };
}

function listenOn(port: number): Promise<net.Server> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(server));
	});
}

test(
	'a taken port: one line naming the port and the variable that changes it, nothing started',
	{ timeout: 60_000 },
	async () => {
		const [n8nPort, sandboxPort] = await freePorts(2);
		for (const [variable, what, taken] of [
			['SANDBOX_PORT', 'sandbox', sandboxPort],
			['N8N_PORT', 'n8n', n8nPort],
		] as const) {
			const blocker = await listenOn(taken);
			try {
				const result = await refusedDev({ N8N_PORT: String(n8nPort), SANDBOX_PORT: String(sandboxPort) });
				assert.equal(result.code, 1);
				assert.equal(result.stdout, '');
				assert.equal(
					result.stderr,
					`dev: port ${taken} (${what}) is already in use on 127.0.0.1; set ${variable} to a free port, e.g. ${variable}=${taken + 1} npm run dev\n`,
				);
			} finally {
				await new Promise((resolve) => blocker.close(resolve));
			}
		}
		const invalid = await refusedDev({ N8N_PORT: 'abc' });
		assert.equal(invalid.code, 1);
		assert.equal(invalid.stderr, 'dev: N8N_PORT must be a port number from 1 to 65535, got "abc"\n');
	},
);

/**
 * Answers the question a Send and Wait example asked, once its execution waits, as the demo subscriber does on the
 * page (through the sandbox); the page says the answer was received.
 */
async function answerExample(
	api: PublicApi,
	sandbox: SandboxClient,
	workflowId: string,
	executionId: string,
	file: string,
) {
	await waitFor(
		async () =>
			(await api.executions(workflowId)).some((run) => run.id === executionId && run.status === 'waiting')
				? true
				: undefined,
		{ what: `${file}: execution ${executionId} waiting for the answer`, timeoutMs: 60_000, intervalMs: 300 },
	);
	const played = await sandbox.sandboxRoute<{ steps: Array<{ action: string; status: number; heading: string }> }>(
		'/answer',
		{ ...EXAMPLE_SUBSCRIBER, ...EXAMPLE_ANSWERS[file].answer },
	);
	assert.deepEqual(
		played.steps.map((step) => `${step.action} ${step.status}`),
		['open 200', 'press 200'],
		`${file}: ${JSON.stringify(played.steps)}`,
	);
	assert.equal(played.steps[1].heading, 'Thank you', `${file}: the answer was received`);
}

/** A file of the build that the running n8n loads: a rebuild replaces it. */
const builtNode = path.join(repoRoot, 'dist', 'nodes', 'MessengerBotBuilder', 'MessengerBotBuilder.node.js');

test(
	'second start on other ports: the credential follows the sandbox; every example succeeds twice in a row (Send and Wait ones once, answered)',
	{ timeout: 900_000 },
	async () => {
		const [n8nA, sandboxA, n8nB, sandboxB, n8nC, sandboxC, n8nD, sandboxD] = await freePorts(8);
		const state = () =>
			JSON.parse(readFileSync(path.join(stateDir, 'state.json'), 'utf8')) as {
				apiKey: string;
				credentialId: string;
				sandboxAdminKey: string;
			};

		// A developer's `npm run dev` in this clone, recorded where every plain `npm run dev` records itself; the test's
		// instances start beside it (one after the other: two n8n starting at once on a busy two-core machine miss
		// their readiness deadline).
		const developerDir = `${stateDir}-developer`;
		const developer = await startDev({ n8n: n8nD, sandbox: sandboxD }, { dir: developerDir, asDeveloper: true });
		assert.ok(
			existsSync(path.join(devRegistryDir(), `${developer.child.pid}.json`)),
			"the developer's dev is not in the clone's registry",
		);
		const first = await startDev({ n8n: n8nA, sandbox: sandboxA });
		assert.doesNotMatch(
			first.output(),
			/also runs in this clone/,
			"the developer's dev counted for the test's instance",
		);
		const firstCredential = state().credentialId;
		assert.match(first.output(), new RegExp(`→ http://127\\.0\\.0\\.1:${sandboxA}/api \\(created\\)`));
		assert.match(first.output(), new RegExp(`Console    http://127\\.0\\.0\\.1:${sandboxA}/console/ `));
		const consolePage = await fetch(`http://127.0.0.1:${sandboxA}/console/`);
		assert.equal(consolePage.status, 200);

		// A second dev in this clone, same data folder, while the first runs (with the build a plain `npm run dev` does):
		// one line, nothing started, nothing of the first touched.
		const built = statSync(builtNode).mtimeMs;
		const again = await refusedDev({ N8N_PORT: String(n8nB), SANDBOX_PORT: String(sandboxB) }, { build: true });
		assert.equal(again.code, 1);
		assert.equal(again.stdout, '');
		const otherDir = `${path.relative(repoRoot, stateDir)}-2`;
		assert.equal(
			again.stderr,
			`dev: npm run dev is already running in this clone (pid ${first.child.pid}, data folder ${path.relative(repoRoot, stateDir)}, ` +
				`editor http://127.0.0.1:${n8nA}); to run another beside it, give it a data folder and ports of its own: ` +
				`N8N_PORT=${n8nA + 1} SANDBOX_PORT=${sandboxA + 1} npm run dev -- --dir ${otherDir}\n`,
		);
		// Another one as that line says (its own folder and ports, the build asked for): it runs beside the first on the
		// first one's build, which it does not rebuild.
		const besideDir = path.join(repoRoot, otherDir);
		try {
			const beside = await startDev({ n8n: n8nC, sandbox: sandboxC }, { dir: besideDir, build: true });
			assert.match(
				beside.output(),
				new RegExp(`dev: npm run dev \\(pid ${first.child.pid}\\) also runs in this clone; this one uses its build`),
			);
			await beside.stop();
		} finally {
			rmSync(besideDir, { recursive: true, force: true });
		}
		assert.equal(statSync(builtNode).mtimeMs, built, 'dist/ was rebuilt under the running n8n');
		assert.equal((await fetch(`http://127.0.0.1:${n8nA}/healthz/readiness`)).status, 200);
		await first.stop();

		const second = await startDev({ n8n: n8nB, sandbox: sandboxB });
		const baseUrl = `http://127.0.0.1:${n8nB}`;
		assert.equal(
			state().credentialId,
			firstCredential,
			'the credential is updated in place, so imported workflows keep it',
		);
		assert.match(second.output(), new RegExp(`→ http://127\\.0\\.0\\.1:${sandboxB}/api \\(updated\\)`));
		const session = await signIn(baseUrl);
		const stored = await credentialAsEditorSees(baseUrl, session, firstCredential);
		assert.equal(stored.data.baseUrl, `http://127.0.0.1:${sandboxB}/api`);
		const api = new PublicApi(baseUrl, state().apiKey);
		// n8n's credential test calls the service at the stored address: only the new sandbox is up.
		assert.deepEqual(await api.testCredential(firstCredential), { status: 'OK', message: 'Connection successful!' });

		const sandbox = new SandboxClient(`http://127.0.0.1:${sandboxB}`, state().sandboxAdminKey);
		const examples = loadExamples({ id: firstCredential, name: 'unused' });
		assert.ok(examples.length >= 15, `expected every example workflow, found ${examples.length}`);
		const ids = new Map((await api.workflows()).map((workflow) => [workflow.name, workflow.id]));
		const startsOnEvents = ({ workflow }: (typeof examples)[number]) =>
			workflow.nodes.some((node) => node.type === 'n8n-nodes-messenger-bot-builder.messengerBotBuilderTrigger');
		const eventStarted = examples.filter(startsOnEvents).map(({ file }) => file);
		assert.deepEqual(eventStarted, ['trigger-events.json']);
		// As a user would: the trigger example published first, so its hook is there while the others run (and the
		// subscribers and stage changes they make start it).
		const triggerWorkflow = ids.get(examples.find(startsOnEvents)!.workflow.name)!;
		await api.publishWorkflow(triggerWorkflow);
		const failures: string[] = [];
		for (const { file, workflow } of examples) {
			const id = ids.get(workflow.name);
			assert.ok(id, `${file}: workflow "${workflow.name}" was not imported`);
			if (id === triggerWorkflow) continue;
			const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
			assert.ok(trigger, `${file}: neither a manual trigger nor the Messenger Bot Builder Trigger`);
			const asks = workflow.nodes.some(
				(node) => (node.parameters as { operation?: string } | undefined)?.operation === 'sendAndWait',
			);
			// A Send and Wait example runs once: it leaves nothing behind that a second run would meet.
			for (const round of asks ? [1] : [1, 2]) {
				const started = await runManually(baseUrl, session, id, String(trigger.name));
				// A Send and Wait example waits for the demo subscriber: the sandbox answers as they would.
				if (asks) await answerExample(api, sandbox, id, started, file);
				const executions = await waitForExecutions(api, id, round, 120_000);
				assert.equal(executions.length, round, `${file}: one execution per run`);
				try {
					assertSucceeded(executions[round - 1]);
				} catch (error) {
					failures.push(`${file} run ${round}: ${(error as Error).message}`);
				}
			}
		}
		// subscriber.json adds new subscribers (its first run) and crm.json changes a stage: the trigger example ran for both.
		const triggered = await waitForExecutions(api, triggerWorkflow, 2, 120_000);
		for (const execution of triggered) {
			try {
				assertSucceeded(execution);
			} catch (error) {
				failures.push(`trigger-events.json, execution ${execution.id}: ${(error as Error).message}`);
			}
		}
		assert.deepEqual(failures, []);
		await api.unpublishWorkflow(triggerWorkflow);
		await second.stop();

		// The developer's dev ran through all of it: still answering, never told about the test's instances.
		assert.equal((await fetch(`http://127.0.0.1:${n8nD}/healthz/readiness`)).status, 200);
		assert.equal((await fetch(`http://127.0.0.1:${sandboxD}/console/`)).status, 200);
		for (const pid of [first.child.pid, second.child.pid])
			assert.doesNotMatch(developer.output(), new RegExp(`pid ${pid}\\b`));
		await developer.stop();
		rmSync(developerDir, { recursive: true, force: true });
	},
);
