/**
 * Scenario 4: the editor in headless Chromium. Sign in as the owner, find our nodes in the node
 * creator, see the action node's actions grouped by resource, and open the action node of a
 * workflow: its credential and every resource are there. Screenshots go to env.outputDir.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { launchChromium } from '../lib/browser.ts';
import { credentialType, nodeTypes } from '../lib/communityPackage.ts';
import type { E2eEnvironment } from '../lib/environment.ts';
import { defaultOwner } from '../lib/n8nApi.ts';

const NODE_NAME = 'Messenger Bot Builder';
const CREDENTIAL_NAME = 'Messenger Bot Builder (sandbox)';
const UI_TIMEOUT_MS = 30_000;

async function shouldSee(locator: Locator, what: string): Promise<void> {
	try {
		await locator.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
	} catch {
		throw new Error(`the editor does not show ${what}`);
	}
}

/** What a field shows: its text and the values of its inputs (a select shows its choice either way). */
function shownText(locator: Locator): Promise<string> {
	return locator.evaluate((element) =>
		[(element as HTMLElement).innerText, ...[...element.querySelectorAll('input')].map((input) => input.value)].join(
			' ',
		),
	);
}

interface ServedNodeType {
	name: string;
	description: string;
	properties: Array<{ name: string; options?: Array<{ name: string; value: string }> }>;
}

/** Our node types as n8n serves their descriptions to the editor. */
async function servedNodeTypes(env: E2eEnvironment): Promise<{ action: ServedNodeType; trigger: ServedNodeType }> {
	const response = await fetch(`${env.n8n.baseUrl}/types/nodes.json`, { headers: { cookie: env.sessionCookie } });
	const types = (await response.json()) as ServedNodeType[];
	const find = (name: string) => {
		const type = types.find((candidate) => candidate.name === name);
		assert.ok(type, `n8n serves the ${name} description`);
		return type;
	};
	// The action node also loads as an AI agent's tool, and (it has Send and Wait) as a human-in-the-loop tool.
	find(`${nodeTypes.action}Tool`);
	find(`${nodeTypes.action}HitlTool`);
	return { action: find(nodeTypes.action), trigger: find(nodeTypes.trigger) };
}

/** The resource names of the action node. */
function resourceNames(action: ServedNodeType): string[] {
	const resource = action.properties.find((property) => property.name === 'resource');
	assert.ok(resource?.options?.length, `the ${nodeTypes.action} description has resources`);
	// n8n itself adds "Custom API Call" to nodes with credentials; it has no group of actions.
	return resource.options.filter((option) => !option.value.startsWith('__')).map((option) => option.name);
}

async function signIn(page: Page, baseUrl: string): Promise<void> {
	await page.goto(`${baseUrl}/signin`);
	await page.locator('#emailOrLdapLoginId').fill(defaultOwner.email);
	await page.locator('#password').fill(defaultOwner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: UI_TIMEOUT_MS });
}

async function searchNodeCreator(page: Page, text: string): Promise<void> {
	const search = page.getByTestId('node-creator-search-bar');
	await shouldSee(search, 'the node creator');
	await search.fill(text);
}

/** A saved workflow "Start → Messenger Bot Builder" with the action node at `typeVersion` and these parameters. */
function createActionWorkflow(
	env: E2eEnvironment,
	name: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
) {
	return env.api.createWorkflow({
		name,
		nodes: [
			{
				id: 'manual',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'action',
				name: NODE_NAME,
				type: nodeTypes.action,
				typeVersion,
				position: [260, 0],
				parameters,
				credentials: { [credentialType]: { id: env.credentialId, name: CREDENTIAL_NAME } },
			},
		],
		connections: { Start: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
	});
}

/** The labels the subscriber picker shows: name, then @nickname and Client ID (computed from the sandbox's own answer). */
function subscriberLabel(card: { name: string; username: string; clientid: string }): string {
	return `${card.name || card.clientid} (${[card.username && `@${card.username}`, card.clientid].filter(Boolean).join(', ')})`;
}

/**
 * Version 2 of the action node: the Subscriber picker lists the bot's newest subscribers with an
 * empty search box, finds one by name, and the pick stays in the field.
 */
async function checkSubscriberPicker(
	env: E2eEnvironment,
	page: Page,
	screenshot: (name: string) => Promise<unknown>,
): Promise<void> {
	const workflow = await createActionWorkflow(env, 'Subscriber picker check', 1, {
		resource: 'subscriber',
		operation: 'getTags',
		botId: { __rl: true, mode: 'id', value: 'bot_tg' },
		clientId: { __rl: true, mode: 'list', value: '' },
	});
	const newest = (
		await env.service.api<{ items: Array<{ name: string; username: string; clientid: string }> }>('/subscriber/list', {
			botid: 'bot_tg',
			sort: 'new',
			limit: 50,
		})
	).items;
	assert.ok(newest.length > 1, 'the sandbox has subscribers of bot_tg');

	await page.goto(`${env.n8n.baseUrl}/workflow/${workflow.id}`);
	await page.getByTestId('canvas-node').filter({ hasText: NODE_NAME }).dblclick();
	const ndv = page.getByTestId('ndv');
	await shouldSee(ndv, 'the node details view of the picker workflow');
	const field = ndv.getByTestId('parameter-input-clientId');
	await shouldSee(field, 'the Subscriber field');
	await field.getByTestId('rlc-input').click();
	// The list opens in a popover outside the node view.
	const items = page.getByTestId('rlc-item');
	await shouldSee(items, 'the subscribers in the picker');
	const shown = (await items.allInnerTexts()).map((text) => text.trim());
	assert.deepEqual(
		shown.slice(0, 3),
		newest.slice(0, 3).map(subscriberLabel),
		`the picker lists the newest subscribers first (it shows ${shown.slice(0, 5).join(' | ')})`,
	);
	await screenshot('6-subscriber-picker.png');

	const alice = newest.find((card) => card.clientid === '100001') ?? {
		name: 'Alice Smith',
		username: '',
		clientid: '100001',
	};
	const search = page.getByTestId('rlc-search');
	const isInput = await search.first().evaluate((element) => element.tagName === 'INPUT');
	await (isInput ? search.first() : search.first().locator('input')).fill('alice');
	await shouldSee(items.filter({ hasText: subscriberLabel(alice) }), `"${subscriberLabel(alice)}" found by name`);
	assert.deepEqual(
		(await items.allInnerTexts()).map((text) => text.trim()),
		[subscriberLabel(alice)],
	);
	await items.first().click();
	const picked = await shownText(field);
	assert.ok(picked.includes('Alice Smith'), `the Subscriber field shows the pick (it shows "${picked.trim()}")`);
	await screenshot('7-subscriber-picked.png');
	await page.keyboard.press('Escape');
}

export async function runEditorScenario(env: E2eEnvironment): Promise<void> {
	mkdirSync(env.outputDir, { recursive: true });
	const served = await servedNodeTypes(env);
	const resources = resourceNames(served.action);
	const workflow = await createActionWorkflow(env, 'Editor check', 1, {
		resource: 'listRow',
		operation: 'getMany',
		listId: { __rl: true, mode: 'name', value: 'Leads' },
	});

	const browser = await launchChromium();
	const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	page.setDefaultTimeout(UI_TIMEOUT_MS);
	const screenshot = (name: string) => page.screenshot({ path: path.join(env.outputDir, name) });
	try {
		await signIn(page, env.n8n.baseUrl);

		// A new workflow: its first step can be our trigger.
		await page.goto(`${env.n8n.baseUrl}/workflow/new`);
		await page.getByTestId('canvas-add-button').click();
		await searchNodeCreator(page, NODE_NAME);
		await shouldSee(
			page.getByTestId('node-creator-item-name').filter({ hasText: NODE_NAME }),
			`${NODE_NAME} among the triggers`,
		);
		await screenshot('1-node-creator-trigger.png');

		// The saved workflow: add a step after the action node, find our node and list its actions by resource.
		await page.goto(`${env.n8n.baseUrl}/workflow/${workflow.id}`);
		await shouldSee(page.getByTestId('canvas-node').filter({ hasText: NODE_NAME }), 'the action node on the canvas');
		await screenshot('2-workflow.png');
		await page.getByTestId('canvas-handle-plus').last().click();
		await searchNodeCreator(page, NODE_NAME);
		await page.getByTestId('node-creator-item-name').filter({ hasText: NODE_NAME }).first().click();
		for (const resource of resources) {
			await shouldSee(page.getByText(new RegExp(`^${resource} actions$`, 'i')), `the "${resource} actions" group`);
		}
		// n8n merges the action node and its trigger into one entry that shows the TRIGGER's description
		// above the actions: it must speak of managing the bots, not only of starting workflows.
		assert.match(served.trigger.description, /^Manage chatbots\b/);
		await shouldSee(
			page.getByText(served.trigger.description, { exact: true }),
			'the description of the merged entry above the actions',
		);
		await screenshot('3-node-creator-actions.png');
		await page.keyboard.press('Escape');

		// Open the action node: credential, resource, operation, and every resource in the picker.
		await page.getByTestId('canvas-node').filter({ hasText: NODE_NAME }).dblclick();
		const ndv = page.getByTestId('ndv');
		await shouldSee(ndv, 'the node details view');
		const credential = ndv.getByTestId('node-credentials-select');
		await shouldSee(credential, 'the credential picker');
		const chosen = await shownText(credential);
		assert.ok(
			chosen.includes(CREDENTIAL_NAME),
			`the node uses the sandbox credential (the picker shows "${chosen.trim()}")`,
		);
		await shouldSee(ndv.getByTestId('parameter-input-operation'), 'the Operation parameter');
		await screenshot('4-action-node.png');
		await ndv.getByTestId('parameter-input-resource').click();
		const options = page.getByRole('option');
		await shouldSee(options, 'the options of the Resource picker');
		// Each option shows the resource's name, then its description.
		const offered = (await options.allInnerTexts()).map((text) => text.split('\n')[0].trim());
		for (const resource of resources)
			assert.ok(
				offered.includes(resource),
				`the Resource picker offers "${resource}" (it offers ${offered.join(', ')})`,
			);
		await screenshot('5-action-node-resources.png');
		await page.keyboard.press('Escape');

		await checkSubscriberPicker(env, page, screenshot);
	} catch (error) {
		await screenshot('failure.png').catch(() => undefined);
		throw error;
	} finally {
		await browser.close();
	}
}
