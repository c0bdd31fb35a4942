import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { RunningSandbox } from '../../sandbox/src';
import type { SandboxApi } from '../support/sandboxApi';
import { startServiceWithout, type LimitedService } from '../support/serviceWithout';
import type { TriggerHarness, TriggerHarnessOptions } from '../support/triggerHarness';
import { waitFor } from '../support/wait';
import { startTriggerTestBed, type TriggerTestBed } from '../support/triggerTestBed';
import type { WebhookServer } from '../support/webhookServer';

/** The hook lifecycle (`webhookMethods`) through n8n-core's HookContext, against the sandbox. */
describe('Messenger Bot Builder Trigger hook lifecycle', () => {
	let sandbox: RunningSandbox;
	let server: WebhookServer;
	let api: SandboxApi;
	let harness: TriggerHarness;

	const hookIds = async () =>
		((await api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string }>).map((hook) => hook.id);

	function trigger(options: Partial<TriggerHarnessOptions> = {}) {
		harness = bed.harness({
			parameters: { events: ['subscriber.new'] },
			...options,
		});
		return harness;
	}

	let bed: TriggerTestBed;

	beforeAll(async () => {
		bed = await startTriggerTestBed(() => harness);
		({ sandbox, api, server } = bed);
	});

	afterAll(() => bed?.close());

	afterEach(() => jest.restoreAllMocks());

	it('names the hook after the workflow and the node', async () => {
		trigger({ workflowName: 'Welcome flow' });
		await harness.activate();
		const hooks = (await api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string; name: string }>;
		expect(hooks.find((hook) => hook.id === harness.nodeStaticData.hookId)?.name).toBe(
			'n8n: Welcome flow / Messenger Bot Builder Trigger',
		);
		await harness.lifecycle('delete');
	});

	it('creates a new hook when the remembered one was removed in the service', async () => {
		trigger();
		await harness.activate();
		const first = String(harness.nodeStaticData.hookId);
		await api.call('/hook/delete', { id: first });
		expect(await harness.lifecycle('checkExists')).toBe(false);
		expect(harness.nodeStaticData.secret).toBeUndefined();
		await harness.activate();
		expect(harness.nodeStaticData.hookId).not.toBe(first);
		expect(await hookIds()).toContain(harness.nodeStaticData.hookId);
		await harness.lifecycle('delete');
	});

	it('replaces a hook that the service disabled (its deliveries were answered 410 Gone)', async () => {
		trigger();
		await harness.activate();
		const disabled = String(harness.nodeStaticData.hookId);
		server.answerAll = 410;
		try {
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'lifecycle-410', messenger: 'telegram' });
			await waitFor('the hook to be disabled', async () => {
				const hooks = (await api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string; disabled: boolean }>;
				return hooks.find((hook) => hook.id === disabled)?.disabled ? true : undefined;
			});
		} finally {
			server.answerAll = undefined;
		}
		expect(await harness.lifecycle('checkExists')).toBe(false);
		expect(await hookIds()).not.toContain(disabled);
		await harness.lifecycle('create');
		expect(harness.nodeStaticData.hookId).not.toBe(disabled);
		await harness.lifecycle('delete');
	});

	it('replaces the hook when the chosen events changed since it was made', async () => {
		trigger();
		await harness.activate();
		const before = harness.nodeStaticData;
		trigger({ parameters: { events: ['subscriber.new', 'payment.success'] } });
		harness.setNodeStaticData(before);
		expect(await harness.lifecycle('checkExists')).toBe(false);
		expect(await hookIds()).not.toContain(before.hookId);
		await harness.lifecycle('create');
		const hooks = (await api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string; events: string[] }>;
		expect(hooks.find((hook) => hook.id === harness.nodeStaticData.hookId)?.events.sort()).toEqual([
			'payment.success',
			'subscriber.new',
		]);
		await harness.lifecycle('delete');
	});

	it('deactivates cleanly when the hook was already removed in the service', async () => {
		trigger();
		await harness.activate();
		await api.call('/hook/delete', { id: harness.nodeStaticData.hookId });
		expect(await harness.lifecycle('delete')).toBe(true);
		expect(harness.nodeStaticData.hookId).toBeUndefined();
	});

	it('refuses to create a hook without events, naming the parameter', async () => {
		trigger({ parameters: { events: [] } });
		await expect(harness.lifecycle('create')).rejects.toThrow(/"Events"/);
	});

	it('reports a key without hooks:write clearly, and never shows the key', async () => {
		const key = await api.keyWith(['hooks:read']);
		trigger({ apiKey: key });
		const error = (await harness.lifecycle('create').then(
			() => undefined,
			(caught: unknown) => caught,
		)) as Error & { description?: string };
		expect(error.message).toMatch(/hooks:write/);
		expect(JSON.stringify({ message: error.message, description: error.description })).not.toContain(key);
	});

	describe('with a service that has no /hook/list and /hook/delete', () => {
		let service: LimitedService;

		beforeAll(async () => {
			service = await startServiceWithout(['/hook/list', '/hook/delete'], sandbox.baseUrl);
		});

		afterAll(async () => {
			await service.close();
		});

		it('trusts the remembered hook, and on deactivation says which hook to remove by hand', async () => {
			trigger({ apiBaseUrl: service.baseUrl });
			await harness.activate();
			const hookId = String(harness.nodeStaticData.hookId);
			expect(await harness.lifecycle('checkExists')).toBe(true);

			const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
			expect(await harness.lifecycle('delete')).toBe(true);
			expect(warn).toHaveBeenCalledTimes(1);
			const [message] = warn.mock.calls[0];
			expect(message).toContain(`Remove hook ${hookId}`);
			expect(message).toContain(`${server.webhookBaseUrl}/`);
			expect(message).not.toContain(sandbox.adminKey);
			expect(harness.nodeStaticData.hookId).toBeUndefined();
			// The service still has it: only a person can remove it.
			expect(await hookIds()).toContain(hookId);
		});
	});
});
