import { openSandbox, type OpenSandbox } from './client';
import { secretBytes, TestReceiver, verifyDeliveryJwt, verifyStandardWebhook } from './hooksTestReceiver';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe('POST /sandbox/hooks/secret (the secret listen gives its hook)', () => {
	let open: OpenSandbox;
	let inbox: TestReceiver;

	beforeEach(async () => {
		open = await openSandbox();
		inbox = await TestReceiver.start();
	});
	afterEach(async () => {
		await inbox.close();
		await open.close();
	});

	async function makeHook(): Promise<string> {
		const created = await open.api.post<{ hook: { id: string } }>('/hook/create', {
			name: `listen ${inbox.url}`,
			url: inbox.url,
			events: ['subscriber.new'],
		});
		expect(created.status).toBe(200);
		return created.body.hook.id;
	}

	test('deliveries are signed with the given secret from then on; the answer holds no secret', async () => {
		const id = await makeHook();
		const set = await open.routes.post('/sandbox/hooks/secret', { id, secret: SECRET });
		expect(set).toMatchObject({ status: 200, body: { ok: true, id } });
		expect(JSON.stringify(set.body)).not.toContain('whsec_');

		await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'secret-1' });
		const [delivery] = await inbox.waitFor(1);
		verifyStandardWebhook(delivery, SECRET);
		expect((await verifyDeliveryJwt(delivery, secretBytes(SECRET), 'HS256')).aud).toBe(id);
		const listed = await open.api.post('/hook/list', {});
		expect(JSON.stringify(listed.body)).not.toContain(SECRET);
	});

	test('refuses a malformed secret, an unknown hook and any key but the account key, naming the cause', async () => {
		const id = await makeHook();
		for (const secret of ['whsec_short', 'sk_live_x', `whsec_${Buffer.alloc(65).toString('base64')}`, 5]) {
			const refused = await open.routes.post('/sandbox/hooks/secret', { id, secret });
			expect(refused).toMatchObject({ status: 422, body: { code: 'invalid_param', param: 'secret' } });
		}
		const unknown = await open.routes.post('/sandbox/hooks/secret', { id: 'hook_none', secret: SECRET });
		expect(unknown).toMatchObject({ status: 422, body: { code: 'not_found', param: 'id' } });
		const restricted = await open.api.withNewKey(['hooks:write', 'hooks:read']);
		const wrongKey = await open.routes.withKey(restricted.key).post('/sandbox/hooks/secret', { id, secret: SECRET });
		expect(wrongKey.status).toBe(401);
	});
});

describe('POST /sandbox/hooks/secret under --signing v1a', () => {
	test('refuses a hook that signs with its own key: it has no secret', async () => {
		const open = await openSandbox({ signingAlgorithm: 'v1a' });
		try {
			const created = await open.api.post<{ hook: { id: string } }>('/hook/create', {
				name: 'v1a',
				url: 'http://127.0.0.1:9/hook',
				events: ['subscriber.new'],
			});
			const refused = await open.routes.post('/sandbox/hooks/secret', { id: created.body.hook.id, secret: SECRET });
			expect(refused).toMatchObject({ status: 422, body: { code: 'param_conflict', param: 'id' } });
		} finally {
			await open.close();
		}
	});
});
