// A/B comparison of two builds of the receiver in ONE process, without HTTP: steadier than compare.mjs on a busy
// machine. Each delivery goes through the Express/node:http middleware with an in-memory request stream and a
// minimal response; builds and schemes alternate for several rounds; the figure is main-thread CPU per delivery
// (WebCrypto work on libuv's threads is not counted: compare.mjs counts it).
//   [COMPARE_SCHEMES=sw,jwt] node bench/receiver/compare-inprocess.mjs <build A index.js> <build B index.js>
//   (cp -r receiver/dist /tmp/before before a change, rebuild, then compare /tmp/before/receiver/src/index.js receiver/dist/receiver/src/index.js)
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const [a, b] = process.argv.slice(2);
if (!a || !b) {
	console.error('usage: node bench/receiver/compare-inprocess.mjs <build A index.js> <build B index.js>');
	process.exit(2);
}
// A copied build resolves the receiver's dependencies (zod 4, jose) from the repository.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
process.env.NODE_PATH = [join(root, 'receiver/node_modules'), join(root, 'node_modules'), process.env.NODE_PATH]
	.filter(Boolean)
	.join(delimiter);
createRequire(import.meta.url)('node:module').Module._initPaths();
const require = createRequire(import.meta.url);
const builds = { A: require(resolve(a)), B: require(resolve(b)) };

const N = Number(process.env.COMPARE_DELIVERIES ?? 20000);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 8);
const WIDTH = 50;
const SCHEMES = (process.env.COMPARE_SCHEMES ?? 'sw,jwt').split(',');
const { generateHookSecret, sampleEvent, signDelivery } = builds.A;
const secret = generateHookSecret();
const kinds = ['subscriber.new', 'subscriber.stage', 'payment.success'];
const deliveries = [];
for (let i = 0; i < N; i += 1) {
	const event = sampleEvent(kinds[i % 3], { hook: 'hook_bench' });
	const body = JSON.stringify(event);
	const { 'x-signature': jwt, ...standardWebhooks } = await signDelivery({
		body,
		eventId: event.id,
		hookId: event.hook,
		secret,
	});
	deliveries.push({ body: Buffer.from(body), headers: { jwt: { 'x-signature': jwt }, sw: standardWebhooks } });
}

const mainThreadMicros = () => {
	const { user, system } = process.threadCpuUsage();
	return user + system;
};

function request(delivery, scheme) {
	const req = new Readable({ read() {} });
	req.method = 'POST';
	req.url = '/hooks';
	req.headers = {
		host: '127.0.0.1:3000',
		connection: 'keep-alive',
		'content-type': 'application/json',
		'content-length': String(delivery.body.length),
		...delivery.headers[scheme],
	};
	return req;
}

function response(done, fail) {
	return {
		headersSent: false,
		writeHead(status) {
			this.status = status;
			return this;
		},
		end(body) {
			this.headersSent = true;
			if (this.status === 200) done();
			else fail(new Error(String(body)));
		},
		destroy: fail,
	};
}

/** Main-thread CPU µs per delivery through a fresh receiver's middleware, WIDTH deliveries in flight. */
async function measure(build, scheme) {
	const receiver = build.createReceiver({ secrets: secret });
	let emitted = 0;
	receiver.onAny(() => void (emitted += 1));
	const middleware = receiver.middleware();
	const start = mainThreadMicros();
	for (let i = 0; i < N; i += WIDTH) {
		const batch = deliveries.slice(i, i + WIDTH).map(
			(delivery) =>
				new Promise((done, fail) => {
					const req = request(delivery, scheme);
					middleware(req, response(done, fail), fail);
					req.push(delivery.body);
					req.push(null);
				}),
		);
		await Promise.all(batch);
		await new Promise((next) => setImmediate(next));
	}
	await receiver.idle();
	if (emitted !== N) throw new Error(`emitted ${emitted} of ${N}`);
	return (mainThreadMicros() - start) / N;
}

const runs = { A: { sw: [], jwt: [] }, B: { sw: [], jwt: [] } };
for (let round = 0; round < ROUNDS; round += 1) {
	for (const scheme of SCHEMES) {
		for (const name of round % 2 ? ['B', 'A'] : ['A', 'B'])
			runs[name][scheme].push(await measure(builds[name], scheme));
	}
}
const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
for (const [scheme, label] of [
	['sw', 'Standard Webhooks'],
	['jwt', 'JWT'],
].filter(([scheme]) => SCHEMES.includes(scheme))) {
	const [ma, mb] = [median(runs.A[scheme]), median(runs.B[scheme])];
	console.log(
		`${label.padEnd(18)} A ${ma.toFixed(2)} µs  B ${mb.toFixed(2)} µs main-thread CPU per delivery  (B - A = ${(mb - ma).toFixed(2)} µs)`,
	);
}
