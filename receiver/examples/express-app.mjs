// A runnable receiver: Express app that verifies deliveries on POST /hooks and logs each event once.
//
//   MBB_HOOK_SECRET=whsec_... node examples/express-app.mjs
//
// Environment:
//   MBB_HOOK_SECRET   hook secret(s) from /hook/create; comma-separated during a rotation (required unless JWKS_URL)
//   MBB_HOOK_ID       accept only deliveries for this hook id (optional)
//   JWKS_URL          the account's JWKS, for ES256/EdDSA-signed deliveries (optional)
//   REDIS_URL         share deduplication between several processes (optional; needs ioredis)
//   MBB_DEDUPE_PREFIX Redis key prefix (optional)
//   HOST, PORT        where to listen (default 127.0.0.1:3000)
//   MBB_DEBUG=1       print the stack trace of each refusal and listener failure below its one line
import express from 'express';
import { createReceiver, memoryDedupeStore, redisDedupeStore } from '@messenger-bot-builder/receiver';

const env = process.env;
const secrets = (env.MBB_HOOK_SECRET ?? '')
	.split(',')
	.map((s) => s.trim())
	.filter(Boolean);
if (secrets.length === 0 && !env.JWKS_URL) {
	console.error(
		'Set MBB_HOOK_SECRET to the hook\'s secret ("whsec_..." from /hook/create, or `mbb-send-event --generate-secret` for local tests), or JWKS_URL.',
	);
	process.exit(2);
}
const dedupe = env.REDIS_URL
	? redisDedupeStore({ url: env.REDIS_URL, prefix: env.MBB_DEDUPE_PREFIX })
	: memoryDedupeStore();

const receiver = createReceiver({
	secrets,
	jwksUrl: env.JWKS_URL || undefined,
	audience: env.MBB_HOOK_ID || undefined,
	dedupe,
});

const log = (record) => console.log(JSON.stringify({ pid: process.pid, ...record }));

receiver
	.on('subscriber.new', (event) => log({ type: event.type, id: event.id, subscriber: event.data.subscriber.clientid }))
	.on('subscriber.stage', (event) =>
		log({ type: event.type, id: event.id, stage: event.data.stage, previous: event.data.previous }),
	)
	.on('payment.success', (event) =>
		log({ type: event.type, id: event.id, amount: event.data.payment.amount, currency: event.data.payment.currency }),
	)
	.onAny((event) => {
		if (!['subscriber.new', 'subscriber.stage', 'payment.success'].includes(event.type))
			log({ type: event.type, id: event.id, unknown: true });
	})
	.onError((error, event) => {
		// No event: a refused delivery with something to act on (clocks apart, a wrong secret, a body changed on its way).
		// One line each; MBB_DEBUG=1 adds the stack trace.
		if (event === undefined)
			log({ refused: error.code, diagnostic: error.diagnostic, unverified: error.diagnosticUnverified === true });
		else
			console.error(
				`listener failed for ${event.type} ${event.id}: ${error instanceof Error ? error.message : String(error)}`,
			);
		if (env.MBB_DEBUG === '1') console.error(error instanceof Error ? error.stack : error);
	});

const app = express();
// The receiver reads the raw body itself: mount it before express.json() (or see the README for other set-ups).
app.post('/hooks', receiver.middleware());
app.use(express.json());
app.get('/health', (_req, res) => res.json({ ok: true }));

const server = app.listen(Number(env.PORT ?? 3000), env.HOST ?? '127.0.0.1', (error) => {
	if (error) {
		console.error(`cannot listen: ${error.message}`);
		process.exit(1);
	}
	const { address, port } = server.address();
	log({ listening: `http://${address}:${port}/hooks` });
});

const stop = async () => {
	server.close();
	await receiver.idle();
	await dedupe.close?.();
	process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
