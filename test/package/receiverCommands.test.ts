import { execFile, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/**
 * The receiver's commands (`mbb-send-event`, `mbb-receiver-queue`) by the names the receiver's docs give them, from the
 * repository's root, after `npm run setup` and the build. npm links a workspace's commands when it installs (`npm ci`), before the build, and leaves out a command whose
 * file is missing then; without the link `npx` looks the name up in the registry instead. So the command is a launcher
 * that is in the repository, which runs the compiled CLI.
 */
const ROOT = join(__dirname, '../..');
const RECEIVER = join(ROOT, 'receiver');
const COMMANDS = { 'mbb-send-event': 'cli.js', 'mbb-receiver-queue': 'queueCommand.js' };
// npx of the Node that runs the tests (Node 24 through scripts/node24.cjs), as `npm run` finds it.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

function npx(args: string[], command = 'mbb-send-event'): Promise<{ code: number; stdout: string; stderr: string }> {
	return new Promise((resolve) =>
		execFile('npx', ['--no-install', command, ...args], { cwd: ROOT, env, encoding: 'utf8' }, (error, stdout, stderr) =>
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
		),
	);
}

interface Received {
	headers: IncomingHttpHeaders;
	body: string;
}

it.each(Object.keys(COMMANDS))(
	'%s is linked to a file that exists before the build, in package.json and in the lockfile npm ci reads',
	(command) => {
		const manifest = JSON.parse(readFileSync(join(RECEIVER, 'package.json'), 'utf8'));
		const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
		const target: string = manifest.bin[command];
		expect(target).toBe(`bin/${command}.cjs`);
		expect(manifest.files).toContain('bin');
		expect(lock.packages.receiver.bin[command]).toBe(target);
		expect(existsSync(join(RECEIVER, target))).toBe(true);
	},
);

it('`npx --no-install mbb-receiver-queue --help` from the root prints its usage', async () => {
	const help = await npx(['--help'], 'mbb-receiver-queue');
	expect(help).toMatchObject({ code: 0, stderr: '' });
	expect(help.stdout).toMatch(/^Usage: mbb-receiver-queue /m);
	expect(help.stdout).toContain('replay --since T');
});

it('`npx --no-install mbb-send-event` from the root prints a new secret and sends a signed delivery', async () => {
	const secret = await npx(['--generate-secret']);
	expect(secret).toMatchObject({ code: 0, stderr: '' });
	expect(secret.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
	const hookSecret = secret.stdout.trim();

	const received: Received[] = [];
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	try {
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
		const sent = await npx([url, '--secret', hookSecret, '--id', 'evt_by_name', '--type', 'payment.success']);
		expect(sent.code).toBe(0);
		expect(sent.stdout).toContain('-> 200');
		expect(received).toHaveLength(1);
		const [{ headers, body }] = received;
		expect(JSON.parse(body)).toMatchObject({ id: 'evt_by_name', type: 'payment.success' });
		// Standard Webhooks: HMAC-SHA256 of "<id>.<timestamp>.<body>" with the secret's bytes.
		const key = Buffer.from(hookSecret.slice('whsec_'.length), 'base64');
		const signature = createHmac('sha256', key)
			.update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
			.digest('base64');
		expect(headers['webhook-id']).toBe('evt_by_name');
		expect(String(headers['webhook-signature']).split(' ')).toContain(`v1,${signature}`);
	} finally {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});

it.each(Object.entries(COMMANDS))(
	'%s says that the receiver is not built yet, instead of a stack, when the compiled command is missing',
	(command, compiled) => {
		const dir = mkdtempSync(join(tmpdir(), 'mbb-command-unbuilt-'));
		try {
			mkdirSync(join(dir, 'bin'));
			const launcher = join(dir, 'bin', `${command}.cjs`);
			copyFileSync(join(RECEIVER, 'bin', `${command}.cjs`), launcher);
			copyFileSync(join(RECEIVER, 'bin', 'launch.cjs'), join(dir, 'bin', 'launch.cjs'));
			const run = spawnSync(process.execPath, [launcher, '--help'], { encoding: 'utf8' });
			expect(run.status).toBe(1);
			expect(run.stdout).toBe('');
			expect(run.stderr).toBe(
				`${command}: the receiver is not built yet (${join(dir, 'dist', 'receiver', 'src', compiled)} is missing): run npm run build\n`,
			);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	},
);
